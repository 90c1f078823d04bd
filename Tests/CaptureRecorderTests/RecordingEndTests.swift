import CaptureCore
import CaptureStorage
import Foundation
import Testing

@testable import CaptureRecorder

/// `capture status` says why an interrupted recording ended (issue 32, item 5): what the journal
/// says (its words are the front end's, RecordingEndTextTests).
@Suite struct RecordingEndTests {
    let start = #"{"event":"start","flush_interval_ms":1000,"modality":"BICYCLE","sources":["trace:x"],"t":1000}"#
    let note = #"{"note":"gnss: 3d","source":"gpsd","t":5000}"#

    @Test func aFailureWrittenIntoTheSummaryIsTheReason() throws {
        var line = JournalLine(t: 9000, event: "summary")
        line.end(by: .diskFull(path: "/d/capture.sqlite"))
        let summary = String(decoding: try line.encoded(), as: UTF8.self)
        let end = RecordingEnd.read(journal: [start, note, summary].joined(separator: "\n") + "\n", bootedAt: 0)
        #expect(end == RecordingEnd(kind: .storeFull, reason: StoreError.diskFull(path: "/d/capture.sqlite").description, lastJournalAt: 9000))
        var other = JournalLine(event: "summary")
        other.end(by: .database("disk I/O error"))
        #expect(other.ended == "store-failed")
    }

    @Test func aJournalCutOffBeforeTheBootIsARestartAfterItTheRecordersEnd() {
        let journal = start + "\n" + note + "\n"
        #expect(RecordingEnd.read(journal: journal, bootedAt: 6000) == RecordingEnd(kind: .restarted, lastJournalAt: 5000))
        #expect(RecordingEnd.read(journal: journal, bootedAt: 4000) == RecordingEnd(kind: .recorderEnded, lastJournalAt: 5000))
        // A torn last line (the cut came while it was written) is skipped.
        #expect(RecordingEnd.read(journal: journal + #"{"note":"gn"#, bootedAt: 6000)?.kind == .restarted)
    }

    @Test func aRunWhoseEverySourceFailedEndedWithThem() {
        let failed = #"{"error":"the device vanished","event":"source_failed","source":"trace:x","t":7000}"#
        let end = RecordingEnd.read(journal: [start, note, failed].joined(separator: "\n") + "\n", bootedAt: 8000)
        #expect(end == RecordingEnd(kind: .sourceGone, lastJournalAt: 7000, sourcesGone: ["trace:x: the device vanished"]))
        // One of two gone: the other went on; the end is the restart, with the lost source.
        let two = start.replacingOccurrences(of: #"["trace:x"]"#, with: #"["trace:x","gpsd"]"#)
        let partly = RecordingEnd.read(journal: [two, failed].joined(separator: "\n"), bootedAt: 8000)
        #expect(partly?.kind == .restarted && partly?.sourcesGone == ["trace:x: the device vanished"])
        // A later run (a recovery) starts with its sources back.
        let recovered = #"{"committed_until":7000,"event":"recovered","sources":["trace:x"],"t":9000}"#
        #expect(
            RecordingEnd.read(journal: [start, failed, recovered].joined(separator: "\n"), bootedAt: 10_000)
                == RecordingEnd(kind: .restarted, lastJournalAt: 9000))
    }

    @Test func aFailedSourceIsJournaled() throws {
        var machine = RecorderStateMachine(sources: [.init(name: "iio:iio:device0"), .init(name: "gpsd")], flushInterval: 1000)
        _ = try machine.start(modality: .bicycle, at: 1000)
        _ = machine.began(measurement: 7, at: 1000)
        #expect(
            machine.sourceFailed(0, error: "the device vanished", at: 2000)
                == [.journal(.sourceFailed(source: "iio:iio:device0", error: "the device vanished"), at: nil)])
        let status = machine.status(at: 2000)
        #expect(status.sources.map(\.state) == [.failed, .running] && status.failedSources == 1)
        let line = String(decoding: try RecorderStateMachine.JournalEntry.sourceFailed(source: "gpsd", error: "gone").line.encoded(), as: UTF8.self)
        #expect(line == #"{"error":"gone","event":"source_failed","source":"gpsd"}"# + "\n")
    }

    /// The journal's lines are written and read by one type (issue 48, item 4): each entry is
    /// one line under the file's names, and reads back as written.
    @Test func everyEntryIsOneLineThatReadsBackAsWritten() throws {
        var counts = SampleCounts()
        (counts.accelerometer, counts.locations) = (10, 2)
        let entries: [RecorderStateMachine.JournalEntry] = [
            .start(modality: .bicycle, sources: ["gpsd", "iio:iio:device0@100"], flushInterval: 1000),
            .recovered(committedUntil: 5000, sources: ["gpsd"]), .command(.modality(.car), by: "cli"),
            .note(source: "gpsd", line: "gnss: 3d", lostSoFar: 3), .sourceFailed(source: "gpsd", error: "gone"),
            .summary(captured: counts, lost: ["gpsd": 1], commitsDeferred: 0),
            .interrupted(committedUntil: 7000, foundAt: 9000), .ride(.begun(by: .size, preRollFrom: 4000)),
            .ride(.moving(stillFor: 30_000)), .ride(.ended(by: .fullStore, distance: 1234.56, discarded: false)),
        ]
        let text = try entries.map { String(decoding: try $0.line.encoded(), as: UTF8.self) }.joined()
        #expect(text.split(separator: "\n").count == entries.count)
        #expect(JournalLine.lines(of: text) == entries.map(\.line))
        #expect(text.contains(#"{"by":"cli","event":"modality","modality":"CAR"}"#))
        #expect(text.contains(#"{"by":"full_store","discarded":false,"distance_m":1234.6,"event":"ride_ended"}"#))
        #expect(text.contains(#"{"captured":{"acc":10,"fix":2},"commits_deferred":0,"event":"summary","lost":{"gpsd":1}}"#))
    }

    /// Issue 42: a recording whose sources all failed before their first sample was finished
    /// empty and delivered; it ends at once instead, its measurement discarded.
    @Test func everySourceFailingBeforeItsFirstSampleEndsTheRunAndDiscardsTheMeasurement() throws {
        func machine() throws -> RecorderStateMachine {
            var machine = RecorderStateMachine(sources: [.init(name: "iio:iio:device0"), .init(name: "gpsd")], flushInterval: 1000)
            _ = try machine.start(modality: .bicycle, at: 1000)
            _ = machine.began(measurement: 7, at: 1000)
            return machine
        }
        var both = try machine()
        #expect(both.sourceFailed(0, error: "no trigger", at: 1500).count == 1)
        #expect(both.nothingRecorded == nil)
        let actions = both.sourceFailed(1, error: "refused", at: 2000)
        #expect(actions.contains { if case .discardEmpty = $0 { true } else { false } })
        #expect(actions.contains { if case .finish = $0 { true } else { false } })
        #expect(both.nothingRecorded == ["iio:iio:device0: no trigger", "gpsd: refused"] && both.isFinished)

        // One sample from either, and the measurement is kept as before (finished by a command).
        var heard = try machine()
        let fix = Sample.fix(Fix(timestamp: 1200, latitude: 51, longitude: 13))
        _ = heard.take([([fix], 1200)], dropped: 0, capacity: 10, from: 1)
        _ = heard.sourceFailed(0, error: "no trigger", at: 1500)
        #expect(heard.sourceFailed(1, error: "gone", at: 2000).count == 1 && heard.nothingRecorded == nil && !heard.isFinished)

        // Armed (ride.detect: auto): nothing to discard, the run ends all the same.
        var armed = RecorderStateMachine(sources: [.init(name: "iio:iio:device0")], flushInterval: 1000)
        _ = armed.arm(modality: .bicycle, at: 1000)
        let armedActions = armed.sourceFailed(0, error: "no trigger", at: 1500)
        #expect(!armedActions.contains { if case .discardEmpty = $0 { true } else { false } })
        #expect(armed.nothingRecorded == ["iio:iio:device0: no trigger"] && armed.isFinished)
    }

    @Test func aTraceThatFailsMidFileStopsTheMeasurementItDrives() throws {
        // Issue 46: a trace broken at a line left its measurement capturing for ever, and the next
        // replay was refused. Its failure now ends the measurement as its end would.
        var machine = RecorderStateMachine(
            sources: [.init(name: "trace:ride.trace", drivesLifecycle: true), .init(name: "gpsd")], flushInterval: 1000)
        _ = try machine.start(modality: .bicycle, at: 1000)
        _ = machine.began(measurement: 7, at: 1000)
        let actions = machine.sourceFailed(0, error: "ride.trace:12: expected a timestamp", at: 5000)
        #expect(actions.first == .journal(.sourceFailed(source: "trace:ride.trace", error: "ride.trace:12: expected a timestamp"), at: nil))
        #expect(actions.contains(.journal(.command(.stop, by: "trace:ride.trace"), at: 5000)), "\(actions)")
        #expect(machine.isFinished && machine.measurement == 7)
        // A device that fails leaves the measurement to the others.
        var device = RecorderStateMachine(sources: [.init(name: "gpsd"), .init(name: "iio:iio:device0")], flushInterval: 1000)
        _ = try device.start(modality: .bicycle, at: 1000)
        _ = device.began(measurement: 8, at: 1000)
        #expect(device.sourceFailed(0, error: "gone", at: 5000).count == 1 && !device.isFinished)
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
        var line = JournalLine(t: 9000, event: "summary")
        line.end(by: .diskFull(path: directory))
        let summary = String(decoding: try line.encoded(), as: UTF8.self)
        try Data((start + "\n" + summary + "\n").utf8).write(to: URL(fileURLWithPath: folder + "/" + RecorderJournal.name))
        let status = try RecorderControl(directory: directory).status()
        #expect(status.state == .interrupted)
        #expect(status.ended?.kind == .storeFull)
    }
}
