import CaptureCore
import CaptureSensors
import CaptureTestSupport
import Foundation
import Testing

/// Issue 16.2: what `capture export` wrote in GPX, GeoJSON and CSV (fixtures/golden/export/ride.*,
/// made by scripts/update-goldens from fixtures/export/ride.trace) comes back from `capture
/// replay`'s reader as the trace it came from: the same tracks (split at the pause), the modality
/// of each, the same fixes with the fields the format keeps, the same distance.
@Suite struct RoundTripTests {
    /// The initial modality and the fixes per track, as the recorder would split them (a track
    /// ends at a pause, a new one begins at a resume), and the modality of each track: the latest
    /// start or modality mark at or before its first fix.
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

    /// An export format as the round trip sees it: its golden file, and what it keeps of a fix.
    struct Export: Sendable, CustomTestStringConvertible {
        /// The golden file, below fixtures/.
        var golden: String
        var format: TraceInputFormat
        /// The fix as the format carries it: GPX the time, speed, horizontal accuracy and quality
        /// (positions rounded); GeoJSON also the altitude; CSV every field in full.
        var kept: @Sendable (Fix) -> Fix

        var testDescription: String { format.rawValue }

        static let gpx = Export(golden: "golden/export/ride.gpx", format: .gpx) { fix in
            Fix(
                timestamp: fix.timestamp, latitude: 0, longitude: 0, horizontalAccuracy: fix.horizontalAccuracy,
                speed: fix.speed, satellites: fix.satellites, hdop: fix.hdop, vdop: fix.vdop, pdop: fix.pdop, mode: fix.mode)
        }
        static let geojson = Export(golden: "golden/export/ride.geojson", format: .geojson) { fix in
            var kept = gpx.kept(fix)
            kept.altitude = fix.altitude
            return kept
        }
        static let csv = Export(golden: "golden/export/ride.locations.csv", format: .csv) { $0 }
    }

    @Test(arguments: [Export.gpx, .geojson, .csv])
    func theExportReadsBackAsTheTraceItCameFrom(_ export: Export) throws {
        let path = Repository.fixture(export.golden)
        #expect(try TraceInput(path: path).format == export.format)
        let original = try Self.modalities(of: Repository.fixture("export/ride.trace"))
        let exported = try Self.modalities(of: path)
        // The fixture has two tracks, a change to walking at the resume, and fix quality to compare.
        #expect(original.modality == .car)
        #expect(original.trackModalities == [.car, .walking])
        #expect(original.tracks.count == 2)
        #expect(original.tracks[0].first?.satellites == 9 && original.tracks[0].first?.pdop == 1.7)
        #expect(exported.modality == original.modality)
        #expect(exported.trackModalities == original.trackModalities)
        #expect(exported.tracks.map { $0.map(export.kept) } == original.tracks.map { $0.map(export.kept) })
        for (back, out) in zip(exported.tracks, original.tracks) {
            let distance = Geodesy.trackDistance(out)
            #expect(distance > 0)
            #expect(abs(Geodesy.trackDistance(back) - distance) <= distance * 0.001)
        }
    }
}
