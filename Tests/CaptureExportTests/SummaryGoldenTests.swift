import CaptureStorage
import Foundation
import Testing

/// `capture show --json` is the store's ``MeasurementSummary`` encoded as the CLI prints JSON;
/// these check it against the golden files in-process (the end-to-end tests check the binary).
/// They live here because the stores are made by replaying the fixtures (CaptureRecorder).
@Suite struct SummaryGoldenTests {
    /// As `printJSON` in the CLI: pretty, sorted keys, unescaped slashes, then a newline.
    static func json(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return [UInt8](try encoder.encode(value)) + [0x0A]
    }

    static let goldens: [(trace: String, golden: String, qnh: Double?)] = [
        ("car.trace", "car.show.json", nil), ("bicycle.trace", "bicycle.show.json", nil),
        ("export/ride.trace", "export/ride.show.json", nil), ("export/ride.trace", "export/ride.qnh.show.json", 1020),
    ]

    @Test(arguments: goldens)
    func summaryMatchesTheGolden(_ trace: String, _ golden: String, _ qnh: Double?) throws {
        let (store, data) = try ExportFixtures.replayed(trace)
        defer { withExtendedLifetime(data) {} }
        let encoded = try Self.json(try store.summary(of: 1, qnh: qnh))
        let expected = try ExportFixtures.golden(golden)
        #expect(encoded == expected, "\(String(decoding: encoded, as: UTF8.self))")
    }

    @Test func listEntryKeepsItsJSONKeys() throws {
        let (store, data) = try ExportFixtures.replayed("export/ride.trace")
        defer { withExtendedLifetime(data) {} }
        let entries = try store.listEntries(held: nil)
        #expect(entries.count == 1)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(try Self.json(entries))) as? [[String: Any]]).first
        #expect(object.map { Set($0.keys) } == ["id", "status", "modality", "start", "end", "tracks", "counts", "upload"])
        #expect(object?["status"] as? String == "finished")
        #expect((object?["upload"] as? [String: Any])?["status"] as? String == "pending")
        #expect(Set(((object?["counts"] as? [String: Any]) ?? [:]).keys) == ["accelerometer", "gyroscope", "magnetometer", "pressure", "locations"])
    }
}
