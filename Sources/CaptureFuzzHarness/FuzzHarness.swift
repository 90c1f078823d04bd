import CaptureCore
import CaptureGNSS
import CaptureTransfer

/// The bodies of the coverage-guided fuzz targets in `Fuzz/` (see `docs/fuzzing.md`).
///
/// Each entry point drives one parser the way the product does and checks the invariants the
/// parser promises. It returns the invariants that failed (empty when all hold); a parser that
/// traps on the input crashes the caller. The libFuzzer executables in `Fuzz/` turn a failure
/// into a crash; `FuzzRegressionTests` replays the seed corpora and every input a fuzz run ever
/// found through the same functions.
public enum FuzzHarness {
    /// The fuzz targets, named as in `Fuzz/corpus/NAME` and `scripts/fuzz NAME`.
    public enum Target: String, CaseIterable, Sendable {
        case nmea
        case trace
        case transferFile = "transfer-file"
        case gpsd
    }

    /// Runs `target` on one input; returns the invariants that failed.
    public static func run(_ target: Target, _ data: UnsafeBufferPointer<UInt8>) -> [String] {
        switch target {
        case .nmea: nmea(data)
        case .trace: trace(data)
        case .transferFile: transferFile(data)
        case .gpsd: gpsd(data)
        }
    }

    /// Runs `target` on one input held in an array.
    public static func run(_ target: Target, _ data: [UInt8]) -> [String] {
        data.withUnsafeBufferPointer { run(target, $0) }
    }

    // MARK: NMEA

    /// The NMEA pipeline as the NMEA source and `capture replay` use it: `NMEAStream.push` with
    /// whatever `read()` returned, then `finish()`. The stream is fed once whole and once in
    /// pieces cut where the input says; both must give the same events and counters (the line
    /// splitter buffers across reads). Strict framing must not crash either.
    static func nmea(_ data: UnsafeBufferPointer<UInt8>) -> [String] {
        var problems: [String] = []
        var whole = NMEAStream()
        let events = whole.push(data) + whole.finish()
        problems += gnssEvents(events, timeout: 2_000)

        var pieces = NMEAStream()
        var chunked: [GNSSEvent] = []
        var start = 0
        var step = 1
        while start < data.count {
            let end = min(data.count, start + step)
            chunked += pieces.push(UnsafeBufferPointer(rebasing: data[start..<end]))
            step = Int(data[start] % 13) + 1
            start = end
        }
        chunked += pieces.finish()
        if chunked != events { problems.append("NMEA: events differ when the bytes arrive in pieces") }
        if pieces.stats != whole.stats { problems.append("NMEA: counters differ when the bytes arrive in pieces") }

        var strict = NMEAStream(framing: .strict)
        problems += gnssEvents(strict.push(data) + strict.finish(), timeout: 2_000)
        return problems
    }

    // MARK: Native trace

    /// The native trace as `TraceFile.forEachRecord` reads it: lines cut at `\n`, the last line
    /// without one, parsed in order until the first error. Every record must satisfy the format's
    /// rules and survive `TraceWriter` → `TraceParser` unchanged; every number the decimal parser
    /// accepts must be the correctly rounded value.
    static func trace(_ data: UnsafeBufferPointer<UInt8>) -> [String] {
        var problems: [String] = []
        var parser = TraceParser()
        var reparser = TraceParser()
        let header = Array(TraceWriter.header.utf8.dropLast())
        _ = try? header.withUnsafeBufferPointer { try reparser.parse(line: $0, number: 1) }
        var start = 0
        var number = 0
        while start < data.count {
            var end = start
            while end < data.count, data[end] != 0x0A { end += 1 }
            number += 1
            problems += decimals(UnsafeBufferPointer(rebasing: data[start..<end]))
            let record: TraceRecord?
            do {
                record = try parser.parse(line: UnsafeBufferPointer(rebasing: data[start..<end]), number: number)
            } catch {
                if error.line != number { problems.append("trace: error on line \(error.line) reported for line \(number)") }
                return problems
            }
            if let record {
                problems += traceRecord(record)
                var written = Array(TraceWriter.line(record).utf8)
                if written.last == 0x0A { written.removeLast() }
                do {
                    let again = try written.withUnsafeBufferPointer { try reparser.parse(line: $0, number: number) }
                    if again != record {
                        problems.append(
                            "trace: line \(number) written as '\(String(decoding: written, as: UTF8.self))' reads back differently")
                    }
                } catch {
                    problems.append("trace: line \(number) written as '\(String(decoding: written, as: UTF8.self))' does not parse: \(error)")
                }
            }
            start = end + 1
        }
        return problems
    }

    /// `DecimalParser` (the trace's number parser, exact fast path) must agree with the standard
    /// library's correctly rounded `Double(String)` on every field it accepts.
    private static func decimals(_ line: UnsafeBufferPointer<UInt8>) -> [String] {
        var problems: [String] = []
        for field in line.split(whereSeparator: { $0 == 0x20 || $0 == 0x09 }) {
            let text = String(decoding: field, as: UTF8.self)
            guard let value = DecimalParser.parse(UnsafeBufferPointer(rebasing: field)) else { continue }
            if let exact = Double(text), exact == value, exact.sign == value.sign { continue }
            problems.append("trace: '\(text)' parsed as \(value), the standard library says \(Double(text).map { "\($0)" } ?? "not a number")")
        }
        return problems
    }

    private static func traceRecord(_ record: TraceRecord) -> [String] {
        var problems: [String] = []
        if record.timestamp < 0 { problems.append("trace: negative timestamp \(record.timestamp)") }
        guard case .sample(let sample) = record else { return problems }
        switch sample {
        case .motion(let sensor, let motion):
            if !(motion.x.isFinite && motion.y.isFinite && motion.z.isFinite) {
                problems.append("trace: \(sensor) sample with a value that is not finite: \(motion)")
            }
        case .pressure(let pressure):
            if !(pressure.hectopascals.isFinite && pressure.hectopascals > 0) {
                problems.append("trace: pressure \(pressure.hectopascals) is not finite and positive")
            }
        case .fix(let fix):
            problems += self.fix(fix, "trace")
        }
        return problems
    }

    // MARK: Cyface transfer files

    /// The transfer-file decoder as `capture import` and the collector use it (container
    /// detection, inflate, wire decoding). A decoded file must hold version 3 and must survive
    /// `TransferFileWriter` → `TransferFileDecoder` with the same fixes (but for what the format
    /// cannot hold), samples and events. Inflating the input in two pieces must give the same
    /// bytes as inflating it whole.
    static func transferFile(_ data: UnsafeBufferPointer<UInt8>) -> [String] {
        var problems: [String] = []
        let bytes = Array(data)
        if bytes.count >= 2 {
            let split = Int(bytes[0]) % bytes.count
            let whole = Result { () throws(CyfaceError) in try TransferFileDecoder.decompress(bytes) }
            var output: [UInt8] = []
            let pieces = Result { () throws in
                let inflater = try Inflater(format: CompressionFormat.detect(bytes[0], bytes[1]), chunkSize: 97)
                try inflater.write(bytes[..<split]) { output += $0 }
                try inflater.write(bytes[split...]) { output += $0 }
                try inflater.finish()
            }
            if case .success((.some, let plain)) = whole, case .success = pieces, plain != output {
                problems.append("transfer file: inflating in two pieces gives other bytes than inflating whole")
            }
            if case .success((.some, _)) = whole, case .failure(let error) = pieces {
                problems.append("transfer file: inflating in two pieces fails (\(error)) where inflating whole succeeds")
            }
        }
        let file: CyfaceTransferFile
        do {
            file = try TransferFileDecoder.decode(bytes)
        } catch {
            return problems
        }
        if file.formatVersion != 3 { problems.append("transfer file: decoded format version \(file.formatVersion)") }
        let measurement = CyfaceMeasurement(
            fixes: file.fixes, samples: file.batches.mapValues { $0.flatMap { $0 } }, events: file.events)
        do {
            let again = try TransferFileDecoder.decode(TransferFileWriter.serialize(measurement))
            // The writer drops elevations and writes an unknown accuracy or speed as 0, as every
            // Cyface SDK does (CyfaceLocations); everything else must come back unchanged.
            let expected = file.fixes.map { fix in
                var fix = fix
                fix.altitude = nil
                fix.horizontalAccuracy = fix.horizontalAccuracy ?? 0
                fix.speed = fix.speed ?? 0
                return fix
            }
            if let change = firstChange(expected, again.fixes) {
                problems.append("transfer file: fixes change when written and read again: \(change)")
            }
            for sensor in MotionSensor.allCases {
                if let change = firstChange(file.samples(of: sensor), again.samples(of: sensor)) {
                    problems.append("transfer file: \(sensor) samples change when written and read again: \(change)")
                }
            }
            if let change = firstChange(file.events, again.events) {
                problems.append("transfer file: events change when written and read again: \(change)")
            }
        } catch {
            problems.append("transfer file: a decoded file cannot be written again: \(error)")
        }
        return problems
    }

    /// The first difference between two lists, described; `nil` if they are equal.
    private static func firstChange<T: Equatable>(_ before: [T], _ after: [T]) -> String? {
        if before.count != after.count { return "\(before.count) → \(after.count) elements" }
        guard let index = before.indices.first(where: { before[$0] != after[$0] }) else { return nil }
        return "#\(index) \(before[index]) → \(after[index])"
    }

    // MARK: gpsd JSON

    /// The gpsd JSON pipeline as the gpsd source and `capture replay` use it: lines cut at `\n`,
    /// each decoded as UTF-8 and fed to `GPSDStream.line`, then `finish()`.
    static func gpsd(_ data: UnsafeBufferPointer<UInt8>) -> [String] {
        var stream = GPSDStream()
        var events: [ReceiverEvent] = []
        for line in data.split(separator: 0x0A, omittingEmptySubsequences: false) {
            events += stream.line(String(decoding: line, as: UTF8.self))
        }
        events += stream.finish()
        var problems: [String] = []
        var gnss: [GNSSEvent] = []
        for event in events {
            switch event {
            case .gnss(let event): gnss.append(event)
            case .motion(let sensor, let motion):
                if !(motion.x.isFinite && motion.y.isFinite && motion.z.isFinite) {
                    problems.append("gpsd: \(sensor) sample with a value that is not finite: \(motion)")
                }
            }
        }
        return problems + gnssEvents(gnss, timeout: 2_000)
    }

    // MARK: Shared invariants

    /// Fixes in range and finite; transitions alternate (acquired, lost, acquired, …), a loss only
    /// after the timeout.
    private static func gnssEvents(_ events: [GNSSEvent], timeout: Int64) -> [String] {
        var problems: [String] = []
        var fixed = false
        for event in events {
            switch event {
            case .fix(let fix):
                problems += self.fix(fix, "GNSS")
                if !fixed { problems.append("GNSS: a fix without 'acquired' before it") }
            case .transition(.acquired):
                if fixed { problems.append("GNSS: 'acquired' twice without 'lost' between") }
                fixed = true
            case .transition(.lost(let at, let lastFix)):
                if !fixed { problems.append("GNSS: 'lost' without 'acquired' before it") }
                if at <= lastFix || at - lastFix < timeout { problems.append("GNSS: lost at \(at), last fix \(lastFix)") }
                fixed = false
            }
        }
        return problems
    }

    private static func fix(_ fix: Fix, _ source: String) -> [String] {
        var problems: [String] = []
        if !(-90...90).contains(fix.latitude) { problems.append("\(source): latitude \(fix.latitude)") }
        if !(-180...180).contains(fix.longitude) { problems.append("\(source): longitude \(fix.longitude)") }
        let optionals = [fix.altitude, fix.horizontalAccuracy, fix.verticalAccuracy, fix.speed, fix.course]
        if optionals.contains(where: { $0.map { !$0.isFinite } ?? false }) {
            problems.append("\(source): a fix with a value that is not finite: \(fix)")
        }
        return problems
    }
}
