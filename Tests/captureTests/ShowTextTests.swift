import CaptureCore
import CaptureStorage
import CaptureTestSupport
@testable import capture
import Foundation
import Testing

/// What `capture show` and `capture list` print, made from the store's values.
struct ShowTextTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("capture-show-\(UUID().uuidString)").path
    let store: Store

    init() throws {
        store = try Store(directory: directory)
    }

    func ride() throws -> Int64 { try StoreRides.twoTracks(in: store) }

    @Test func showSaysTheFiguresTheTracksAndTheMarkers() throws {
        let id = try ride()
        let folder = Store.attachmentDirectory(of: id, in: directory)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try """
        {"event":"marker","latitude":51.0001,"longitude":13,"source":"button /dev/input/event0","t":2100}
        {"event":"marker","source":"button /dev/input/event0","t":3500}
        """.write(toFile: folder + "/" + Store.journalName, atomically: true, encoding: .utf8)
        let text = try store.summary(of: id).text
        #expect(text.contains("  ride      11 m in 0:00:03 (distance over clean fixes)"), "\(text)")
        #expect(text.contains("  altitude  barometric, above the start: 0.0 → 4.2 m, range 0.0 to 4.2 m, climb 2.1 m"))
        #expect(text.contains("at 51.0001, 13.0 (button /dev/input/event0)"), "\(text)")
        #expect(text.contains(", no fix near (button /dev/input/event0)"))
        #expect(text.components(separatedBy: "  marker    ").count == 3)
        #expect(text.contains("  track 2 ") && text.contains("WALKING"))
    }

    @Test func anInterruptedMeasurementIsShownSoFarAsTheInterruption() throws {
        var engine = Recording()
        let id = try store.begin(try engine.apply(.start(.car), at: 1_000), sources: "test")
        _ = engine.ingest(.fix(Fix(timestamp: 1_100, latitude: 51, longitude: 13, horizontalAccuracy: 5, speed: 4)))
        try store.commit(engine.takeFlush(), to: id)
        let text = try store.summary(of: id).text
        #expect(text.contains("measurement \(id): interrupted") && text.contains("→ interrupted"), "\(text)")
        #expect(text.contains("until the interruption") && !text.contains("so far") && !text.contains("open"))
    }

    /// Issue 42: the samples column showed 0 for a measurement holding only pressure.
    @Test func listCountsEverySampleKindButFixesInItsSamplesColumn() throws {
        var engine = Recording()
        let id = try store.begin(try engine.apply(.start(.bicycle), at: 1_000), sources: "iio:iio:device1")
        for time in [1_100, 1_200, 1_300] as [Int64] {
            _ = engine.ingest(.pressure(PressureSample(timestamp: time, hectopascals: 1000)))
        }
        _ = engine.ingest(.motion(.magnetometer, MotionSample(timestamp: 1_400, x: 1, y: 2, z: 3)))
        try store.commit(engine.takeFlush(), to: id)
        try store.commit(try engine.apply(.stop, at: 2_000), to: id)
        let row = try #require(try store.listEntries(held: nil).first).row
        let cells = row.split(separator: " ", omittingEmptySubsequences: true)
        // ID STATUS MODALITY START(date, time) DURATION TRACKS FIXES SAMPLES
        #expect(cells.count > 8 && cells[7] == "0" && cells[8] == "4", "\(row)")
    }

    @Test func aPartSaysWhichPartOfWhichMeasurementItIs() throws {
        _ = try ride()
        var entry = try #require(try store.listEntries(held: nil).first)
        entry.part = MeasurementPart(original: 7, number: 2, count: 3)
        let table = MeasurementListEntry.table([entry])
        #expect(table.count == 2 && table[0].hasPrefix("ID      STATUS"))
        #expect(table[1].hasSuffix("(part 2/3 of 7)"), "\(table[1])")
    }
}
