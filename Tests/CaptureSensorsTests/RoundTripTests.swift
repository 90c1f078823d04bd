import CaptureCore
import CaptureSensors
import CaptureTestSupport
import Foundation
import Testing

/// Issue 16.2, GPX: what `capture export --format gpx` wrote (fixtures/golden/export/ride.gpx, made
/// by scripts/update-goldens from fixtures/export/ride.trace) comes back from `capture replay`'s
/// reader with the same tracks, modality, fixes, distance, speed, accuracy and fix quality.
@Suite struct GPXRoundTripTests {
    /// Fixes per track and the initial modality, as the recorder would split them: a track ends at
    /// a pause, a new one begins at a resume.
    static func tracks(of path: String) throws -> (modality: Modality?, tracks: [[Fix]]) {
        let read = try modalities(of: path)
        return (read.modality, read.tracks)
    }

    /// Also the modality of each track: the latest start or modality mark at or before its first fix.
    static func modalities(of path: String) throws -> (modality: Modality?, tracks: [[Fix]], trackModalities: [Modality?]) {
        var modality: Modality?
        var marks: [(time: Int64, modality: Modality)] = []
        var tracks: [[Fix]] = [[]]
        var trackModalities: [Modality?] = []
        var paused = false
        try TraceInput(path: path).forEachRecord { record, _ in
            switch record {
            case .mark(.start(let value), let time):
                modality = value
                marks.append((time, value))
            case .mark(.modality(let value), let time): marks.append((time, value))
            case .mark(.pause, _): paused = true
            case .mark(.resume, _):
                paused = false
                tracks.append([])
            case .sample(.fix(let fix)) where !paused:
                tracks[tracks.count - 1].append(fix)
            default: break
            }
        }
        // A track's modality: the latest mark at or before its first fix (by time, not file order).
        trackModalities = tracks.map { track in
            track.first.flatMap { first in marks.filter { $0.time <= first.timestamp }.max { $0.time < $1.time }?.modality }
        }
        return (modality, tracks, trackModalities)
    }

    @Test func theExportedGPXReadsBackAsTheTraceItCameFrom() throws {
        let original = try Self.tracks(of: Repository.fixture("export/ride.trace"))
        let exported = try Self.tracks(of: Repository.fixture("golden/export/ride.gpx"))
        #expect(exported.modality == original.modality)
        #expect(exported.modality == .car)
        #expect(exported.tracks.map(\.count) == original.tracks.map(\.count))
        #expect(exported.tracks.count == 2)
        for (back, out) in zip(exported.tracks, original.tracks) {
            let distance = Geodesy.trackDistance(out)
            #expect(distance > 0)
            #expect(abs(Geodesy.trackDistance(back) - distance) <= distance * 0.001)
            for (b, o) in zip(back, out) {
                #expect(b.timestamp == o.timestamp)
                #expect(b.speed == o.speed)
                #expect(b.horizontalAccuracy == o.horizontalAccuracy)
                #expect(b.satellites == o.satellites && b.hdop == o.hdop && b.vdop == o.vdop && b.pdop == o.pdop)
                #expect(b.mode == o.mode)
            }
        }
        // The quality really is there to compare (the fixture has it on track 1).
        #expect(exported.tracks[0].first?.satellites == 9)
    }
}

/// Issue 16.2, GeoJSON: capture's GeoJSON export (fixtures/golden/export/ride.geojson) replays as
/// the trace it came from: one track per feature with its modality, the same fixes, distance,
/// speed, accuracy and fix quality.
@Suite struct GeoJSONRoundTripTests {
    @Test func theExportedGeoJSONReadsBackAsTheTraceItCameFrom() throws {
        let geojson = Repository.fixture("golden/export/ride.geojson")
        #expect(try TraceInput(path: geojson).format == .geojson)
        let original = try GPXRoundTripTests.modalities(of: Repository.fixture("export/ride.trace"))
        let exported = try GPXRoundTripTests.modalities(of: geojson)
        #expect(exported.modality == original.modality)
        #expect(exported.trackModalities == original.trackModalities)
        #expect(exported.trackModalities == [.car, .walking])
        #expect(exported.tracks.map(\.count) == original.tracks.map(\.count))
        for (back, out) in zip(exported.tracks, original.tracks) {
            let distance = Geodesy.trackDistance(out)
            #expect(abs(Geodesy.trackDistance(back) - distance) <= distance * 0.001)
            for (b, o) in zip(back, out) {
                #expect(b.timestamp == o.timestamp)
                #expect(b.altitude == o.altitude)
                #expect(b.speed == o.speed && b.horizontalAccuracy == o.horizontalAccuracy)
                #expect(b.satellites == o.satellites && b.hdop == o.hdop && b.vdop == o.vdop && b.pdop == o.pdop)
                #expect(b.mode == o.mode)
            }
        }
        #expect(exported.tracks[0].first?.pdop == 1.7)
    }
}

/// Issue 16.2, CSV: capture's locations table (fixtures/golden/export/ride.locations.csv) replays
/// as the trace it came from: tracks by the `track` column, the modality column, the same fixes,
/// distance, speed, accuracy and fix quality.
@Suite struct CSVRoundTripTests {
    @Test func theExportedLocationsTableReadsBackAsTheTraceItCameFrom() throws {
        let csv = Repository.fixture("golden/export/ride.locations.csv")
        #expect(try TraceInput(path: csv).format == .csv)
        let original = try GPXRoundTripTests.modalities(of: Repository.fixture("export/ride.trace"))
        let exported = try GPXRoundTripTests.modalities(of: csv)
        #expect(exported.modality == original.modality)
        #expect(exported.trackModalities == original.trackModalities)
        #expect(exported.tracks.map(\.count) == original.tracks.map(\.count))
        #expect(exported.tracks.count == 2)
        for (back, out) in zip(exported.tracks, original.tracks) {
            let distance = Geodesy.trackDistance(out)
            #expect(abs(Geodesy.trackDistance(back) - distance) <= distance * 0.001)
            #expect(back == out)  // CSV keeps every field in full
        }
    }
}
