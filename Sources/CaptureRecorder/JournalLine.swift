import CaptureStorage
import Foundation

/// One line of a measurement's journal (`recorder.jsonl`, ``RecorderJournal``), as it is
/// written and as it is read back: every field a line may carry, under its name in the file.
/// A line carries `t` (Unix ms) and the fields of what happened; the others are left out.
struct JournalLine: Codable, Sendable, Equatable {
    /// When it happened, Unix ms.
    var t: Int64?
    /// What happened: `start`, `recovered`, a lifecycle command's verb, `source_failed`,
    /// `summary`, a ride rule's event (`armed`, `ride_begun`, `still`, `moving`, `ride_ended`);
    /// absent on a source's note.
    var event: String?
    var modality: String?
    var sources: [String]?
    var flushIntervalMs: Int64?
    /// Who gave a command (`cli`, `signal`, …), or what began or ended a ride.
    var by: String?
    var committedUntil: Int64?
    var foundAt: Int64?
    /// A source's note, and the samples it lost so far.
    var source: String?
    var note: String?
    var lostSoFar: Int?
    var error: String?
    /// The summary: samples captured and lost by kind, commits deferred, and what ended a run
    /// that a failure ended (``RecordingEnd/Kind``) with the failure's words.
    var captured: [String: Int]?
    var lost: [String: Int]?
    var commitsDeferred: Int?
    var ended: String?
    var reason: String?
    /// A ride rule's figures.
    var samplesFrom: Int64?
    var stillForMs: Int64?
    var distanceM: Double?
    var discarded: Bool?
    /// A marker's place (``Marker``), when a fix gave one.
    var latitude: Double?
    var longitude: Double?

    /// Spelled out rather than derived with `.convertToSnakeCase`: a key strategy also converts
    /// the keys of `captured` and `lost`, and `lost` is keyed by source spec
    /// (`nmea:/dev/ttyACM0` would be written `nmea:/dev/tty_acm0`).
    enum CodingKeys: String, CodingKey {
        case t, event, modality, sources, by, source, note, error, captured, lost, ended, reason, discarded, latitude, longitude
        case flushIntervalMs = "flush_interval_ms", committedUntil = "committed_until", foundAt = "found_at"
        case lostSoFar = "lost_so_far", commitsDeferred = "commits_deferred", samplesFrom = "samples_from"
        case stillForMs = "still_for_ms", distanceM = "distance_m"
    }

    /// The summary of a run that `failure` ended says so (read back by ``RecordingEnd``).
    mutating func end(by failure: StoreError) {
        let kind: RecordingEnd.Kind = if case .diskFull = failure { .storeFull } else { .storeFailed }
        ended = kind.rawValue
        reason = failure.description
    }

    /// The line as written: one JSON object, keys sorted, and a newline.
    func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self) + [0x0A]
    }

    /// The lines of a journal's `text` that read as lines; a torn last one (a power cut came
    /// while it was written) is left out.
    static func lines(of text: String) -> [JournalLine] {
        let decoder = JSONDecoder()
        return text.split(separator: "\n").compactMap { try? decoder.decode(JournalLine.self, from: Data($0.utf8)) }
    }
}

extension RecorderStateMachine.JournalEntry {
    /// The entry's line (``RecorderJournal/note(_:at:)`` adds `t`).
    var line: JournalLine {
        switch self {
        case .start(let modality, let sources, let flushInterval):
            return JournalLine(event: "start", modality: modality.rawValue, sources: sources, flushIntervalMs: flushInterval)
        case .recovered(let committedUntil, let sources):
            return JournalLine(event: "recovered", sources: sources, committedUntil: committedUntil)
        case .command(let command, let origin):
            var line = JournalLine(event: command.verb, by: origin)
            if case .modality(let modality) = command { line.modality = modality.rawValue }
            if case .start(let modality) = command { line.modality = modality.rawValue }
            return line
        case .note(let source, let note, let lostSoFar):
            return JournalLine(source: source, note: note, lostSoFar: lostSoFar)
        case .sourceFailed(let source, let error):
            return JournalLine(event: "source_failed", source: source, error: error)
        case .summary(let captured, let lost, let commitsDeferred):
            // The kinds captured, by their short names, as `capture status` names them.
            let kinds: [(String, Int)] = [
                ("acc", captured.accelerometer), ("gyr", captured.gyroscope), ("mag", captured.magnetometer),
                ("prs", captured.pressure), ("fix", captured.locations),
            ]
            // Staged commits that gave way to another process's transaction (none lost: they went
            // in at a later flush); many mean a reader holding the store for long.
            return JournalLine(
                event: "summary", captured: Dictionary(uniqueKeysWithValues: kinds.filter { $0.1 > 0 }), lost: lost,
                commitsDeferred: commitsDeferred)
        case .interrupted(let committedUntil, let foundAt):
            return JournalLine(event: "stop", by: "interruption", committedUntil: committedUntil, foundAt: foundAt)
        case .ride(let event):
            return event.line
        case .underVoltage:
            return JournalLine(event: "under_voltage")
        case .marker(let marker):
            return JournalLine(event: "marker", source: marker.source, latitude: marker.latitude, longitude: marker.longitude)
        }
    }
}

extension RideEvent {
    /// The event's journal line.
    var line: JournalLine {
        switch self {
        case .armed: JournalLine(event: "armed")
        case .begun(let begin, let from): JournalLine(event: "ride_begun", by: begin.rawValue, samplesFrom: from)
        case .still: JournalLine(event: "still")
        case .moving(let stillFor): JournalLine(event: "moving", stillForMs: stillFor)
        case .ended(let end, let distance, let discarded):
            JournalLine(event: "ride_ended", by: end.rawValue, distanceM: (distance * 10).rounded() / 10, discarded: discarded)
        }
    }
}
