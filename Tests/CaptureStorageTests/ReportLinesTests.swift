@testable import CaptureStorage
import Foundation
import Testing

/// The lines and JSON objects of `capture attach` and `capture status`'s privacy warning, made in
/// this library (the CLI prints them).
struct ReportLinesTests {
    @Test func anAttachmentReportsItselfAsJSONAndAsALine() throws {
        let record = AttachmentRecord(
            id: 7, measurement: 3, format: .jsonl, name: "log.jsonl", addedAt: 0, status: .pending, reason: nil,
            sessionURL: nil, totalLength: nil, fileSHA256: nil, acknowledged: 0, uploadedAt: nil)
        let report = record.report(bytes: 2048)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        #expect(
            String(decoding: try encoder.encode(report), as: UTF8.self)
                == #"{"attachment":7,"bytes":2048,"format":"jsonl","measurement":3,"name":"log.jsonl"}"#)
        #expect(
            report.line
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
}
