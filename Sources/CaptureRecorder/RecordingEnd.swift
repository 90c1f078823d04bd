import CaptureCore
import CaptureStorage
import Foundation

/// Why an interrupted measurement's recording ended, when no command ended it: what
/// `capture status` shows beside "interrupted", so that a store-full stop or a power cut is not
/// found only in `recorder.log`. Field names and values are the `--json` output's.
///
/// Read from the measurement's journal (`recorder.jsonl`), its last run (from the last `start`
/// or `recovered` line): a recorder that stops on a failure writes it into its closing summary
/// (`"ended"`, `"reason"`); a source that failed for good (a device unplugged) wrote a
/// `source_failed` line, and a run whose every source failed so recorded nothing after the last
/// of them went; a journal without a summary was cut off, by a restart of the machine if it ends
/// before the machine booted, else by the recorder's own end (killed, crashed).
package struct RecordingEnd: Codable, Sendable, Equatable {
    /// What ended it.
    package enum Kind: String, Codable, Sendable, Equatable {
        /// The store (the disk, or its size limit) was full and nothing more could go.
        case storeFull = "store-full"
        /// Another store failure (a damaged database, an I/O error).
        case storeFailed = "store-failed"
        /// The machine restarted (a power cut or a reboot) while it recorded.
        case restarted
        /// The recorder ended without finishing (killed, crashed) while the machine ran on.
        case recorderEnded = "recorder-ended"
        /// Every source had failed for good (a device unplugged): nothing was recorded after.
        case sourceGone = "source-gone"
    }

    /// What ended it.
    package var kind: Kind
    /// The failure's own words, for the store kinds.
    package var reason: String?
    /// Unix ms: when the recorder wrote its last journal line.
    package var lastJournalAt: Int64?
    /// The sources that failed for good in the last run, with why (`iio:device0: the device
    /// vanished`); absent when none did.
    package var sourcesGone: [String]?

    /// Creates a value from its parts.
    package init(kind: Kind, reason: String? = nil, lastJournalAt: Int64? = nil, sourcesGone: [String]? = nil) {
        self.kind = kind
        self.reason = reason
        self.lastJournalAt = lastJournalAt
        self.sourcesGone = sourcesGone
    }

    /// Reads the journal `text`; nil when it says the recording finished normally, or when
    /// there is nothing to read. `bootedAt` is when this machine booted (Unix ms), nil if unknown.
    package static func read(journal text: String, bootedAt: Int64?) -> RecordingEnd? {
        let lines = JournalLine.lines(of: text)
        // The last run: from the last start (or recovery after a crash) on.
        let runStart = lines.lastIndex { ["start", "recovered"].contains($0.event) } ?? 0
        let run = lines[runStart...]
        let sources = run.first?.sources ?? []
        let failed = run.filter { $0.event == "source_failed" }
        let gone = failed.map { "\($0.source ?? "?"): \($0.error ?? "failed")" }
        let sourcesGone = gone.isEmpty ? nil : gone
        if let summary = run.last(where: { $0.event == "summary" }) {
            guard let ended = summary.ended.flatMap(Kind.init(rawValue:)) else { return nil }
            return RecordingEnd(kind: ended, reason: summary.reason, lastJournalAt: summary.t, sourcesGone: sourcesGone)
        }
        guard let last = lines.last?.t else { return nil }
        let failedNames = Set(failed.compactMap(\.source))
        if !sources.isEmpty, Set(sources).isSubset(of: failedNames) {
            return RecordingEnd(kind: .sourceGone, lastJournalAt: failed.last?.t, sourcesGone: sourcesGone)
        }
        if let bootedAt, last < bootedAt { return RecordingEnd(kind: .restarted, lastJournalAt: last, sourcesGone: sourcesGone) }
        return RecordingEnd(kind: .recorderEnded, lastJournalAt: last, sourcesGone: sourcesGone)
    }

    /// Reads the journal of measurement `id` in `directory` (nil when it has none).
    static func read(measurement id: Int64, directory: String, bootedAt: Int64? = bootTime()) -> RecordingEnd? {
        Store.journalText(of: id, in: directory).flatMap { read(journal: $0, bootedAt: bootedAt) }
    }

    /// When this machine booted, Unix ms: `btime` in `/proc/stat` (Linux); nil elsewhere.
    static func bootTime() -> Int64? {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("btime ") {
            return Int64(line.dropFirst(6).trimmingCharacters(in: .whitespaces)).map { $0 * 1000 }
        }
        return nil
    }
}
