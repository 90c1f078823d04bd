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
        var modality: Modality?
        var tracks: [[Fix]] = [[]]
        var paused = false
        try TraceInput(path: path).forEachRecord { record, _ in
            switch record {
            case .mark(.start(let value), _): modality = value
            case .mark(.pause, _): paused = true
            case .mark(.resume, _):
                paused = false
                tracks.append([])
            case .sample(.fix(let fix)) where !paused: tracks[tracks.count - 1].append(fix)
            default: break
            }
        }
        return (modality, tracks)
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
