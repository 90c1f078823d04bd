package import CaptureCore

/// Counters for a whole NMEA stream: framing, decoding and epoch assembly.
package struct NMEAStats: Sendable, Equatable {
    /// Non-empty lines seen.
    package var lines = 0
    /// Lines starting with `#` (comments in gpsd logs), skipped.
    package var comments = 0
    /// Sentences that passed framing and checksum.
    package var sentences = 0
    /// Accepted sentences longer than the standard 82 bytes (tolerant mode).
    package var overlongAccepted = 0
    /// Lines without any `$`/`!`.
    package var notNMEA = 0
    /// Lines that failed as a whole but contain a later `$`/`!` (line noise before a sentence, or
    /// a sentence cut off by the next one); the text from the last start delimiter on was tried.
    package var resynchronized = 0
    /// Sentences cut off before their checksum.
    package var truncated = 0
    /// Sentences whose checksum did not match.
    package var badChecksum = 0
    /// Sentences rejected for other framing reasons (malformed checksum or address, bad bytes, too long).
    package var badFraming = 0
    /// Decoded sentences, by type (`RMC`, `GGA`, …).
    package var decoded: [String: Int] = [:]
    /// Well-framed sentences of types not decoded here, by type (`GSV`, `PGRME`, …).
    package var unsupported: [String: Int] = [:]
    /// Well-framed sentences of supported types with bad or missing fields, by type.
    package var malformed: [String: Int] = [:]
    /// Epoch assembly counters.
    package var assembly = NMEAAssemblyStats()

    /// All zero.
    package init() {}

    /// Sentences and lines dropped because of damage (not counting unsupported types and comments).
    package var rejected: Int {
        notNMEA + truncated + badChecksum + badFraming + malformed.values.reduce(0, +)
    }
}

/// The whole pure NMEA pipeline: bytes → lines → sentences → messages → epochs → fixes.
///
/// Device adapters feed whatever `read()` returned; nothing here is fatal: damaged input is
/// counted in ``stats`` and skipped.
///
/// ```swift
/// var stream = NMEAStream()
/// for event in stream.push(bytes) { if case .fix(let fix) = event { record(fix) } }
/// let tail = stream.finish()
/// ```
package struct NMEAStream: Sendable {
    /// Framing strictness.
    package let framing: NMEAFramingOptions
    /// Counters since creation.
    package var stats: NMEAStats {
        var stats = counters
        stats.assembly = assembler.stats
        return stats
    }
    /// The fix state (searching / fixed).
    package var fixState: FixLossTracker.State { assembler.tracker.state }

    private var splitter = NMEALineSplitter()
    private var assembler: NMEAEpochAssembler
    private var counters = NMEAStats()

    /// - Parameters:
    ///   - framing: framing options (tolerant of long sentences by default).
    ///   - configuration: epoch assembly tunables.
    package init(framing: NMEAFramingOptions = .init(), configuration: NMEAEpochAssembler.Configuration = .init()) {
        self.framing = framing
        self.assembler = NMEAEpochAssembler(configuration: configuration)
    }

    /// Feeds raw bytes; returns the events completed by them.
    package mutating func push(_ bytes: some Sequence<UInt8>) -> [GNSSEvent] {
        splitter.push(bytes).flatMap { line(String($0)) }
    }

    /// Feeds one line (with or without its line ending).
    package mutating func line(_ text: String) -> [GNSSEvent] {
        let trimmed = text.drop { $0 == " " || $0 == "\t" }
        if trimmed.allSatisfy({ $0 == "\r" || $0 == "\n" || $0 == " " || $0 == "\t" }) { return [] }
        counters.lines += 1
        if trimmed.hasPrefix("#") {
            counters.comments += 1
            return []
        }
        let sentence: NMEASentence
        do {
            sentence = try frame(trimmed)
        } catch {
            switch error {
            case .missingStartDelimiter: counters.notNMEA += 1
            case .truncated: counters.truncated += 1
            case .checksumMismatch: counters.badChecksum += 1
            case .malformedChecksum, .tooLong, .invalidCharacter, .malformedAddress: counters.badFraming += 1
            }
            return []
        }
        counters.sentences += 1
        if sentence.exceedsStandardLength { counters.overlongAccepted += 1 }
        let message: NMEAMessage
        do {
            message = try NMEAMessage(sentence)
        } catch {
            switch error {
            case .unsupported(let type): counters.unsupported[type, default: 0] += 1
            case .tooFewFields(let type, _, _), .invalidField(let type, _): counters.malformed[type, default: 0] += 1
            }
            return []
        }
        counters.decoded[sentence.type, default: 0] += 1
        return assembler.add(message)
    }

    private mutating func frame(_ text: Substring) throws(NMEAFrameError) -> NMEASentence {
        do {
            return try NMEASentence(validating: text, options: framing)
        } catch {
            // Noise before the sentence, or a sentence cut off by the next one
            // ("$GPGSV,3,1,11,02$GPRMC,…*6B"): retry from the last start delimiter.
            guard let start = text.dropFirst().lastIndex(where: { $0 == "$" || $0 == "!" }) else { throw error }
            counters.resynchronized += 1
            return try NMEASentence(validating: text[start...], options: framing)
        }
    }

    /// Ends the input: flushes a final unterminated line and closes the last epoch.
    package mutating func finish() -> [GNSSEvent] {
        let events = splitter.finish().flatMap { line($0) }
        return events + assembler.finish()
    }
}
