import CaptureCore
import CaptureStorage
import Foundation
import Testing

@testable import CaptureRecorder

/// `capture status` says why an interrupted recording ended (issue 32, item 5).
@Suite struct RecordingEndTests {
    let start = #"{"event":"start","flush_interval_ms":1000,"modality":"BICYCLE","sources":["trace:x"],"t":1000}"#
    let note = #"{"note":"gnss: 3d","source":"gpsd","t":5000}"#

    @Test func aFailureWrittenIntoTheSummaryIsTheReason() throws {
        let fields = RecordingEnd.fields(for: .diskFull(path: "/d/capture.sqlite"))
        let summary = String(decoding: try JSONSerialization.data(withJSONObject: fields.merging(["event": "summary", "t": 9000]) { $1 }), as: UTF8.self)
        let end = RecordingEnd.read(journal: [start, note, summary].joined(separator: "\n") + "\n", bootedAt: 0)
        #expect(end == RecordingEnd(kind: .storeFull, reason: StoreError.diskFull(path: "/d/capture.sqlite").description, lastJournalAt: 9000))
        #expect(end?.text.hasPrefix("the store was full: the disk holding /d/capture.sqlite is full") == true)
        let other = RecordingEnd.fields(for: .database("disk I/O error"))
        #expect(other["ended"] as? String == "store-failed")
    }

    @Test func aJournalCutOffBeforeTheBootIsARestartAfterItTheRecordersEnd() {
        let journal = start + "\n" + note + "\n"
        #expect(RecordingEnd.read(journal: journal, bootedAt: 6000) == RecordingEnd(kind: .restarted, lastJournalAt: 5000))
        #expect(RecordingEnd.read(journal: journal, bootedAt: 4000) == RecordingEnd(kind: .recorderEnded, lastJournalAt: 5000))
        // A torn last line (the cut came while it was written) is skipped.
        #expect(RecordingEnd.read(journal: journal + #"{"note":"gn"#, bootedAt: 6000)?.kind == .restarted)
    }

    @Test func aCleanSummaryOrNoJournalSaysNothing() {
        #expect(RecordingEnd.read(journal: start + "\n" + #"{"event":"summary","t":9000}"#, bootedAt: 0) == nil)
        #expect(RecordingEnd.read(journal: "", bootedAt: 0) == nil)
    }

    @Test func statusReadsTheJournalOfTheInterruptedMeasurement() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("capture-end-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try Store(directory: directory)
        var engine = Recording()
        let id = try store.begin(try engine.apply(.start(.car), at: 1_000), sources: "trace:/nowhere.trace")
        let folder = Store.attachmentDirectory(of: id, in: directory)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let fields = RecordingEnd.fields(for: .diskFull(path: directory))
        let summary = String(decoding: try JSONSerialization.data(withJSONObject: fields.merging(["event": "summary", "t": 9000]) { $1 }), as: UTF8.self)
        try Data((start + "\n" + summary + "\n").utf8).write(to: URL(fileURLWithPath: folder + "/" + RecorderJournal.name))
        let status = try RecorderControl(directory: directory).status()
        #expect(status.state == .interrupted)
        #expect(status.ended?.kind == .storeFull)
        #expect(status.text(interrupted: "resume or stop").contains("\n  ended      the store was full: "))
    }
}
