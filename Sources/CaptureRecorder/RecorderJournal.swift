import CaptureCore
import CaptureSensors
import CaptureStorage
import Foundation
import Glibc

/// The recorder's log of one measurement, `recorder.jsonl` among its attachments (uploaded after
/// it, §2.8): one JSON object per line with `t` (Unix ms) and what happened: the start (sources,
/// flush interval), a recovery after a crash, every lifecycle command, a source's note when it
/// changes (lost samples, GNSS fix state), a source that failed for good, and a summary of what
/// was captured at the end.
///
/// Best effort: a line that cannot be written is dropped, never the recording. Each line is
/// made durable (`fdatasync`; lines are few: lifecycle commands, changes of a source's state), so
/// a power cut loses at most the line being written; that torn line is cut off before the log
/// is written again, its measurement finished after a crash, or it is uploaded
/// (``AttachmentFile/cutTornLastLine(_:)``).
final class RecorderJournal {
    static let name = "recorder.jsonl"
    private let descriptor: Int32

    /// Opens (appending) the journal of `measurement` and, given a `store`, records it as an
    /// attachment (without one, the measurement's `begin` step in the flush log does); nil if
    /// either fails.
    init?(directory: String, measurement: Int64, store: Store?) {
        let folder = Store.attachmentDirectory(of: measurement, in: directory)
        do {
            try PrivateFiles.createDirectory((folder as NSString).deletingLastPathComponent)
            try PrivateFiles.createDirectory(folder)
        } catch {
            return nil
        }
        let path = folder + "/" + Self.name
        AttachmentFile.cutTornLastLine(path)
        let fd = PrivateFiles.open(path, O_WRONLY | O_APPEND)
        guard fd >= 0 else { return nil }
        guard store == nil || (try? store?.addAttachment(to: measurement, name: Self.name, format: .jsonl)) != nil else {
            close(fd)
            return nil
        }
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// Appends one line: `fields` and `t`.
    func note(_ fields: [String: Any], at time: Int64 = WallClock.now()) {
        var object = fields
        object["t"] = time
        guard var data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return }
        data.append(0x0A)
        data.withUnsafeBytes { bytes in
            var done = 0
            while done < bytes.count {
                let n = write(descriptor, bytes.baseAddress! + done, bytes.count - done)
                if n < 0, errno == EINTR { continue }
                if n <= 0 { return }
                done += n
            }
        }
        while fdatasync(descriptor) != 0, errno == EINTR {}
    }
}

extension RecorderStateMachine.JournalEntry {
    /// The entry's fields as the journal writes them (`t` is added when written).
    var fields: [String: Any] {
        switch self {
        case .start(let modality, let sources, let flushInterval):
            return ["event": "start", "modality": modality.rawValue, "sources": sources, "flush_interval_ms": flushInterval]
        case .recovered(let committedUntil, let sources):
            return ["event": "recovered", "committed_until": committedUntil, "sources": sources]
        case .command(let command, let origin):
            var fields: [String: Any] = ["event": command.verb, "by": origin]
            if case .modality(let modality) = command { fields["modality"] = modality.rawValue }
            if case .start(let modality) = command { fields["modality"] = modality.rawValue }
            return fields
        case .note(let source, let line, let lostSoFar):
            var fields: [String: Any] = ["source": source, "note": line]
            if let lostSoFar { fields["lost_so_far"] = lostSoFar }
            return fields
        case .sourceFailed(let source, let error):
            return ["event": "source_failed", "source": source, "error": error]
        case .summary(let captured, let lost, let commitsDeferred):
            // The kinds captured, by their short names, as `capture status` names them.
            let kinds: [(String, Int)] = [
                ("acc", captured.accelerometer), ("gyr", captured.gyroscope), ("mag", captured.magnetometer),
                ("prs", captured.pressure), ("fix", captured.locations),
            ]
            let counts = Dictionary(uniqueKeysWithValues: kinds.filter { $0.1 > 0 })
            // Staged commits that gave way to another process's transaction (none lost: they went
            // in at a later flush); many mean a reader holding the store for long.
            return ["event": "summary", "captured": counts, "lost": lost, "commits_deferred": commitsDeferred]
        case .interrupted(let committedUntil, let foundAt):
            return ["event": "stop", "by": "interruption", "committed_until": committedUntil, "found_at": foundAt]
        case .ride(let event):
            return event.fields
        }
    }
}
