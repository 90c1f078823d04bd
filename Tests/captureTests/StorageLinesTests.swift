import CaptureCore
@testable import CaptureStorage
@testable import capture
import Testing

/// What `capture prune`, `capture attach`, `capture status` (its privacy warning) and `show` and
/// `list` (a measurement's upload state) print, made from the store's values.
struct StorageLinesTests {
    @Test func aPruneReportReadsAsLines() {
        var report = PruneReport(bytesBefore: 4_096_000, dryRun: true)
        report.removed = [.init(measurement: 3, reason: "delivered 31 days ago", discarded: false)]
        report.bytesAfter = 2_048_000
        report.overBudget = true
        #expect(
            report.lines == [
                "measurement 3: would remove (delivered 31 days ago)",
                "prune: 1 would remove; database \(ByteCount.text(4_096_000)) → \(ByteCount.text(2_048_000)); "
                    + "still over retention.max_store_size: nothing more may go",
            ])
    }

    @Test func anAttachmentReadsAsALine() {
        let record = AttachmentRecord(
            id: 7, measurement: 3, format: .jsonl, name: "log.jsonl", addedAt: 0, status: .pending, reason: nil,
            sessionURL: nil, totalLength: nil, fileSHA256: nil, acknowledged: 0, uploadedAt: nil)
        #expect(
            record.report(bytes: 2048).line
                == "attached log.jsonl to measurement 3 as attachment 7 (jsonl, 2.0 kB); it goes to the collector after the measurement")
    }

    @Test func exposedPathsReadAsOneWarningWithTheChmodsToRun() {
        let exposed = [
            PrivacyCheck.Exposure(path: "/d", mode: "755", chmod: "chmod 700 /d"),
            PrivacyCheck.Exposure(path: "/d/capture.sqlite", mode: "644", chmod: "chmod 600 /d/capture.sqlite"),
        ]
        #expect(
            PrivacyCheck.warning(exposed)
                == "warning: other users can read /d (mode 755), /d/capture.sqlite (mode 644); run: chmod 700 /d; chmod 600 /d/capture.sqlite")
        #expect(PrivacyCheck.warning([]) == nil)
    }

    @Test func anUploadStateReadsAsAWordOrTwo() {
        var record = UploadRecord.pending(1)
        #expect(UploadSummary(record).text == "pending")
        record.status = .uploading
        record.acknowledged = 12
        record.totalLength = 40
        #expect(UploadSummary(record).text == "uploading 12/40 B" && record.summary == "uploading 12/40 B")
        record.status = .failed
        record.reason = "HTTP 500"
        #expect(UploadSummary(record).text == "failed (HTTP 500)")
        #expect(MeasurementPart(original: 7, number: 2, count: 3).text == "part 2/3 of 7")
    }
}
