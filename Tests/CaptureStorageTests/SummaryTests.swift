import CaptureCore
import CaptureTestSupport
import Foundation
import Testing

@testable import CaptureStorage

/// The read models of `show` and `list`, and deleting a measurement with its transfer file.
@Suite struct SummaryTests {
    let temporary = TemporaryDirectory()
    var directory: String { temporary.path }
    let store: Store

    init() throws {
        store = try Store(directory: temporary.path)
    }

    /// Two tracks (a pause between), a change to walking at the resume, pressure on track 1.
    func ride(stop: Bool = true) throws -> Int64 { try StoreRides.twoTracks(in: store, stop: stop) }

    @Test func summaryOfATwoTrackRide() throws {
        let id = try ride()
        let summary = try store.summary(of: id)
        #expect(summary.status == .finished && summary.modality == "CAR" && summary.durationMs == 3_000)
        #expect(summary.tracks.map(\.modality) == ["CAR", "WALKING"])
        #expect(summary.tracks.map(\.counts.locations) == [2, 1])
        #expect(summary.counts.locations == 3 && summary.counts.pressure == 2)
        // 0.0001° of latitude is 11.1 m; the pause gap between the tracks does not count.
        #expect(abs(summary.tracks[0].distanceMeters - 11.1) < 0.2 && summary.tracks[1].distanceMeters == 0)
        #expect(summary.distanceMeters == summary.tracks[0].distanceMeters)
        #expect(summary.boundingBox == BoundingBox(minLatitude: 51, maxLatitude: 51.0002, minLongitude: 13, maxLongitude: 13))
        let baro = try #require(summary.barometricAltitude)
        #expect(baro.kind == .relative && baro.start == 0 && baro.end == 4.206)
        #expect(summary.events.first?.type == "LIFECYCLE_START")
        #expect(summary.upload.status == .pending && summary.upload.acknowledged == 0)
        #expect(try store.summary(of: id, qnh: 1020).barometricAltitude?.kind == .absolute)
        #expect(throws: StoreError.measurementNotFound(99)) { try store.summary(of: 99) }
    }

    @Test func listMarksAnOpenMeasurementWithoutRecorderInterrupted() throws {
        let finished = try ride()
        let open = try ride(stop: false)
        let alone = try store.listEntries(held: nil)
        #expect(alone.map(\.id) == [finished, open])
        #expect(alone.map(\.status) == [.finished, .interrupted])
        #expect(try store.listEntries(held: HeldMeasurement(id: open, state: .capturing)).map(\.status) == [.finished, .capturing])
        #expect(alone[0].tracks == 2 && alone[0].counts.locations == 3 && alone[0].end == 4_000 && alone[1].end == nil)
    }

    @Test func deleteRemovesTheCachedTransferFile() throws {
        let id = try ride()
        let file = try store.transferFile(for: id, directory: directory)
        #expect(FileManager.default.fileExists(atPath: file.path))
        let attachments = Store.attachmentDirectory(of: id, in: directory)
        try PrivateFiles.createDirectory(attachments)
        try Data("{}\n".utf8).write(to: URL(fileURLWithPath: attachments + "/notes.json"))
        try store.deleteMeasurement(id, directory: directory)
        #expect(!FileManager.default.fileExists(atPath: file.path))
        #expect(!FileManager.default.fileExists(atPath: file.path + ".meta"))
        #expect(!FileManager.default.fileExists(atPath: attachments))
        #expect(throws: StoreError.measurementNotFound(id)) { try store.deleteMeasurement(id, directory: directory) }
    }
}
