import CaptureStorage
import Foundation

/// Why an interrupted measurement's recording ended, when no command ended it: what
/// `capture status` shows beside "interrupted", so that a store-full stop or a power cut is not
/// found only in `recorder.log`. Field names and values are the `--json` output's.
///
/// Read from the measurement's journal (`recorder.jsonl`): a recorder that stops on a failure
/// writes it into its closing summary (`"ended"`, `"reason"`); a journal without a summary was
/// cut off, by a restart of the machine if it ends before the machine booted, else by the
/// recorder's own end (killed, crashed).
public struct RecordingEnd: Codable, Sendable, Equatable {
    /// What ended it.
    public enum Kind: String, Codable, Sendable, Equatable {
        /// The store (the disk, or its size limit) was full and nothing more could go.
        case storeFull = "store-full"
        /// Another store failure (a damaged database, an I/O error).
        case storeFailed = "store-failed"
        /// The machine restarted (a power cut or a reboot) while it recorded.
        case restarted
        /// The recorder ended without finishing (killed, crashed) while the machine ran on.
        case recorderEnded = "recorder-ended"
    }

    /// What ended it.
    public var kind: Kind
    /// The failure's own words, for the store kinds.
    public var reason: String?
    /// Unix ms: when the recorder wrote its last journal line.
    public var lastJournalAt: Int64?

    /// Creates a value from its parts.
    public init(kind: Kind, reason: String? = nil, lastJournalAt: Int64? = nil) {
        self.kind = kind
        self.reason = reason
        self.lastJournalAt = lastJournalAt
    }

    /// The journal's fields that record a failure's end (written into the closing summary).
    static func fields(for failure: StoreError) -> [String: Any] {
        let kind: Kind = if case .diskFull = failure { .storeFull } else { .storeFailed }
        return ["ended": kind.rawValue, "reason": failure.description]
    }

    /// Reads the journal `text`; nil when it says the recording finished normally, or when
    /// there is nothing to read. `bootedAt` is when this machine booted (Unix ms), nil if unknown.
    public static func read(journal text: String, bootedAt: Int64?) -> RecordingEnd? {
        var last: Int64?
        for line in text.split(separator: "\n").reversed() {
            guard let data = line.data(using: .utf8),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            else { continue }
            let time = (object["t"] as? NSNumber)?.int64Value
            if last == nil { last = time }
            guard object["event"] as? String == "summary" else { continue }
            guard let ended = (object["ended"] as? String).flatMap(Kind.init(rawValue:)) else { return nil }
            return RecordingEnd(kind: ended, reason: object["reason"] as? String, lastJournalAt: time)
        }
        guard let last else { return nil }
        if let bootedAt, last < bootedAt { return RecordingEnd(kind: .restarted, lastJournalAt: last) }
        return RecordingEnd(kind: .recorderEnded, lastJournalAt: last)
    }

    /// Reads the journal of measurement `id` in `directory` (nil when it has none).
    static func read(measurement id: Int64, directory: String, bootedAt: Int64? = bootTime()) -> RecordingEnd? {
        let path = Store.attachmentDirectory(of: id, in: directory) + "/" + RecorderJournal.name
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return read(journal: text, bootedAt: bootedAt)
    }

    /// When this machine booted, Unix ms: `btime` in `/proc/stat` (Linux); nil elsewhere.
    static func bootTime() -> Int64? {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("btime ") {
            return Int64(line.dropFirst(6).trimmingCharacters(in: .whitespaces)).map { $0 * 1000 }
        }
        return nil
    }

    /// One line for `capture status`: what happened and what it means for the data.
    public var text: String {
        switch kind {
        case .storeFull:
            "the store was full: \(reason ?? "no room left"); make room before it goes on"
        case .storeFailed:
            "the store failed: \(reason ?? "unknown"); what was committed before is kept"
        case .restarted:
            "the machine restarted while it recorded (a power cut or a reboot); what was synced before is kept"
        case .recorderEnded:
            "the recorder ended without finishing (killed or crashed); its output is in recorder.log in the data directory"
        }
    }
}
