import CaptureCore
import CaptureStorage
import CaptureUpload
@testable import capture
import Testing

/// What `capture sync` prints about a pass, and logs on its way.
struct DeliveryPassLinesTests {
    /// An upload's result reads as one line (`capture upload` prints it too).
    @Test func aResultReadsAsALine() {
        let uploaded = UploadResult(measurement: 7, outcome: .uploaded, bytes: 1_200_000, seconds: 0.42)
        #expect(uploaded.line == "measurement 7: uploaded, \(ByteCount.text(1_200_000)) in 0.4 s")
        let failed = UploadResult(measurement: 8, outcome: .failed, reason: "HTTP 422")
        #expect(failed.line == "measurement 8: failed (HTTP 422)")
        var part = UploadResult(measurement: 9, outcome: .skipped, reason: "412", attachment: 2, name: "log.jsonl")
        part.part = MeasurementPart(original: 7, number: 2, count: 3)
        #expect(part.line == "measurement 9 (part 2/3 of 7) attachment 2 (log.jsonl): skipped (412)")
    }

    /// What `capture upload --resume` says waits when nothing was interrupted.
    @Test func whatWaitsIsCountedByStatus() {
        #expect(Upload.waiting([:]) == nil)
        #expect(Upload.waiting([.pending: 1, .failed: 2]) == "3 measurement(s) wait (2 failed, 1 pending)")
    }

    @Test func aPassReadsAsLines() {
        let uploaded = UploadResult(measurement: 7, outcome: .uploaded, bytes: 1_200_000, seconds: 0.42)
        let failed = UploadResult(measurement: 8, outcome: .failed, reason: "HTTP 422")
        let state = DeliveryState(failures: 2, nextAttemptAt: 0, lastError: "connection refused (127.0.0.1:1)")
        #expect(DeliveryPass.Outcome.nothingWaiting.lines(directory: "/d") == ["sync: nothing waits"])
        #expect(DeliveryPass.Outcome.busy(waiting: 1).lines(directory: "/d") == ["sync: another upload is running in /d; nothing to do"])
        let delivered = DeliveryPass.Outcome.delivered(
            UploadReport(results: [uploaded, failed], credentialsOrigin: "t"), state: state, waiting: 1, metering: nil)
        #expect(delivered.lines(directory: "/d") == [uploaded.line, failed.line, "sync: next attempt at \(TextFormat.time(0))"])
        let unreachable = DeliveryPass.Outcome.unreachable(state: state, waiting: 3, metering: nil)
        #expect(unreachable.lines(directory: "/d") == ["sync: 3 waiting; connection refused (127.0.0.1:1); next attempt at \(TextFormat.time(0))"])
    }

    @Test func notesReadAsLinesAndOnlyTheTroublesAreWarnings() {
        #expect(DeliveryPass.Note.delivering(reason: "2 waiting").line == "sync: delivering: 2 waiting")
        #expect(DeliveryPass.Note.pruned(3).line == "sync: pruned 3 measurement(s) as retention.* allows")
        #expect(!DeliveryPass.Note.pruned(3).isWarning && !DeliveryPass.Note.delivering(reason: "x").isWarning)
        #expect(DeliveryPass.Note.meteringUnknown.isWarning && DeliveryPass.Note.loginNotRefreshed("timeout").isWarning)
        #expect(
            DeliveryPass.Note.loginNotRefreshed("timeout").line
                == "the login is due for a refresh that failed (timeout); the next sync tries again")
    }
}
