import CaptureCore
import CaptureFormats
import Foundation
import Testing

/// Each format's writer and reader, side by side in CaptureFormats, agree: what the writer
/// spells, the reader gives back (to the precision the format writes). The exports' golden files
/// (CaptureExportTests) pin the bytes; these pin the pair without a store or a process.
@Suite struct FormatRoundTripTests {
    /// A fix with everything a receiver reports, and one with a position and a time only. Values
    /// the formats round (degrees to 7 places, the rest to 2) are chosen to survive it.
    static let fixes = [
        Fix(
            timestamp: 1_700_000_000_123, latitude: 51.0504321, longitude: 13.7372621, altitude: 112.5,
            horizontalAccuracy: 3.25, verticalAccuracy: 4.75, speed: 4.5, course: 271.5, satellites: 9, hdop: 0.9,
            vdop: 1.2, pdop: 1.5, mode: .threeD),
        Fix(timestamp: 1_700_000_001_123, latitude: -33.8688197, longitude: 151.2092955),
    ]

    /// What GPX and GeoJSON keep of a fix: no vertical accuracy, no course.
    static func withoutVerticalAccuracyAndCourse(_ fix: Fix) -> Fix {
        var fix = fix
        fix.verticalAccuracy = nil
        fix.course = nil
        return fix
    }

    @Test func gpxReadsBackWhatItsWriterWrote() throws {
        var text = GPXWriter.header(measurement: 7, startTime: Self.fixes[0].timestamp, modality: "BICYCLE")
        text += GPXWriter.segmentStart + GPXWriter.point(Self.fixes[0]) + GPXWriter.segmentEnd
        text += GPXWriter.segmentStart + GPXWriter.point(Self.fixes[1], modality: "WALKING") + GPXWriter.segmentEnd
        text += GPXWriter.footer
        let read = try GPXReader.read(Data(text.utf8))
        #expect(read.modality == .bicycle)
        #expect(read.fixes.map(\.fix) == Self.fixes.map(Self.withoutVerticalAccuracyAndCourse))
        #expect(read.fixes.map(\.segment) == [1, 2])
        #expect(read.fixes.map(\.modality) == [nil, .walking])
    }

    @Test func aCutOffGPXIsAnErrorAtItsLine() {
        let text = GPXWriter.header(measurement: 7, startTime: 0, modality: "BICYCLE") + GPXWriter.segmentStart
        #expect(throws: TraceError.self) { try GPXReader.read(Data(text.utf8)) }
    }

    @Test func geoJSONReadsBackWhatItsWriterWrote() throws {
        var text = GeoJSONWriter.header
        text += GeoJSONWriter.feature(
            first: true, track: 1, modality: "BICYCLE", start: Self.fixes[0].timestamp, end: Self.fixes[1].timestamp,
            distance: 1234.5, fixes: Self.fixes, modalities: ["BICYCLE", "WALKING"])
        // A track with one fix has no geometry: the reader keeps its modality, no fixes.
        text += GeoJSONWriter.feature(
            first: false, track: 2, modality: "CAR", start: 1_700_000_002_000, end: nil, distance: 0,
            fixes: [Self.fixes[1]], modalities: ["CAR"])
        text += GeoJSONWriter.footer
        let read = try GeoJSONReader.read(Data(text.utf8))
        try #require(read.count == 2)
        #expect(read[0].modality == .bicycle)
        #expect(read[0].fixes == Self.fixes.map(Self.withoutVerticalAccuracyAndCourse))
        #expect(read[0].modalities == [.bicycle, .walking])
        #expect(read[1].modality == .car && read[1].fixes.isEmpty)
    }

    @Test func theLocationsTableReadsBackWhatItsWriterWrote() throws {
        var text = CSVWriter.locationsHeader
        text += CSVWriter.line(Self.fixes[0], track: 1, modality: "BICYCLE")
        text += CSVWriter.line(Self.fixes[1], track: 2, modality: "WALKING")
        let rows = try CSVLocationsReader.read(Data(text.utf8))
        // Every field of a fix, exactly: CSV spells doubles in full.
        #expect(rows.map(\.fix) == Self.fixes)
        #expect(rows.map(\.track) == [1, 2])
        #expect(rows.map(\.modality) == [.bicycle, .walking])
    }

    @Test func aCSVFieldIsQuotedOnlyWhenItMustBe() {
        #expect(CSVWriter.field("BICYCLE") == "BICYCLE")
        #expect(CSVWriter.field("a,b") == "\"a,b\"")
        #expect(CSVWriter.field("say \"hi\"") == "\"say \"\"hi\"\"\"")
    }
}
