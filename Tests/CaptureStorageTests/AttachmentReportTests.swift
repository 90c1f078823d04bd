@testable import CaptureStorage
import Foundation
import Testing

/// The JSON object of `capture attach` (its line is the front end's: StorageLinesTests).
struct AttachmentReportTests {
    @Test func anAttachmentReportsItselfAsJSON() throws {
        let record = AttachmentRecord(
            id: 7, measurement: 3, format: .jsonl, name: "log.jsonl", addedAt: 0, status: .pending, reason: nil,
            sessionURL: nil, totalLength: nil, fileSHA256: nil, acknowledged: 0, uploadedAt: nil)
        let report = record.report(bytes: 2048)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        #expect(
            String(decoding: try encoder.encode(report), as: UTF8.self)
                == #"{"attachment":7,"bytes":2048,"format":"jsonl","measurement":3,"name":"log.jsonl"}"#)
    }
}
