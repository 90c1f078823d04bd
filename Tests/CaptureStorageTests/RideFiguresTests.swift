import CaptureCore
import Foundation
import Testing

@testable import CaptureStorage

/// One ride, one set of figures: distance, duration, moving time and altitude as `show`, the
/// plot, the GPX export and `metrics` state them.
@Suite struct RideFiguresTests {
    /// Tracks from `spans` (ms), a fix per second moving north at 5 m/s, each with a GNSS altitude
    /// climbing 1 m a fix.
    static func tally(_ spans: [(Int64, Int64)]) -> (RideFigures.Tally, [TrackRecord]) {
        var tally = RideFigures.Tally()
        var tracks: [TrackRecord] = []
        var height = 100.0
        for (number, span) in spans.enumerated() {
            for t in stride(from: span.0, through: span.1, by: 1000) {
                let latitude = 51 + Double(t) / 1000 * 5 / 111_195
                tally.add(Fix(timestamp: t, latitude: latitude, longitude: 13, altitude: height, horizontalAccuracy: 5, speed: 5))
                height += 1
            }
            tally.endTrack()
            tracks.append(TrackRecord(number: number + 1, startTime: span.0, endTime: span.1))
        }
        return (tally, tracks)
    }

    @Test func aRideWithAPauseCountsItsTracks() {
        // 0–10 min, a minute's pause, 11–20 min.
        let (tally, tracks) = Self.tally([(0, 600_000), (660_000, 1_200_000)])
        let figures = tally.figures(start: 0, end: 1_200_000, tracks: tracks, lastSample: nil, pressures: [], qnh: nil)
        #expect(figures.durationMs == 1_200_000 && figures.movingMs == 1_140_000)
        // 5 m/s for 600 s and 540 s: the pause (and the jump across it) is no distance.
        #expect(abs(figures.distanceMeters - 5_700) < 10, "\(figures.distanceMeters)")
        #expect(figures.headline == "5.70 km in 0:20:00, 0:19:00 moving")
        // No pressure: the fixes' altitude, above sea level, in decimetres.
        let altitude = figures.altitude
        #expect(altitude?.source == .gnss && altitude?.reference == .seaLevel)
        #expect(altitude?.start == 100 && altitude?.end == 100 + 601 + 541 - 1 && altitude?.min == 100)
        #expect(figures.altitudeText?.hasPrefix("GNSS: 100.0 → 1241.0 m, range 100.0 to 1241.0 m, climb ") == true)
    }

    @Test func theBarometerWinsOverTheReceiver() {
        let (tally, tracks) = Self.tally([(0, 10_000)])
        let figures = tally.figures(
            start: 0, end: 10_000, tracks: tracks, lastSample: nil, pressures: [1000.5, 1000.0, 999.9], qnh: nil)
        let altitude = figures.altitude
        #expect(altitude?.source == .barometric && altitude?.reference == .start)
        // 0.5 hPa near 1000 hPa is about 4.2 m; one decimal, however many the sensor gives.
        #expect(altitude?.start == 0 && altitude?.end == 5.0 && altitude?.max == 5.0)
        #expect(figures.altitudeText?.hasPrefix("barometric, above the start: 0.0 → 5.0 m") == true, "\(figures.altitudeText ?? "")")
        // A pause under a second is not worth a moving time.
        #expect(figures.headline == "50 m in 0:00:10")
        let withQNH = tally.figures(start: 0, end: 10_000, tracks: tracks, lastSample: nil, pressures: [1000.5], qnh: 1013.25)
        #expect(withQNH.altitude?.reference == .seaLevel && withQNH.altitude?.label == "barometric, above sea level")
        // Not one valid pressure: the receiver's altitude.
        let invalid = tally.figures(start: 0, end: 10_000, tracks: tracks, lastSample: nil, pressures: [0, -1], qnh: nil)
        #expect(invalid.altitude?.source == .gnss)
    }

    @Test func anOpenRideCountsToItsLastSample() {
        var (tally, tracks) = Self.tally([(0, 30_000)])
        tracks[0].endTime = nil
        let figures = tally.figures(start: 0, end: nil, tracks: tracks, lastSample: 30_000, pressures: [], qnh: nil)
        #expect(figures.durationMs == nil && figures.movingMs == 30_000)
        #expect(figures.headline == "150 m so far, 0:00:30 moving")
    }

    @Test func oneDecimalForHeights() {
        #expect(RideFigures.metres(2.56) == "2.6")
        #expect(RideFigures.metres(-0.04) == "0.0")
        #expect(RideFigures.metres(145) == "145.0")
        #expect(RideFigures().altitudeText == nil && RideFigures().text == "0 m so far, 0:00:00 moving")
    }

    @Test func showAndTheStoreHaveTheSameFigures() throws {
        // SummaryTests' ride: two tracks (a pause of 0.5 s), pressure on the first.
        let summaryTests = try SummaryTests()
        let store = summaryTests.store
        let id = try summaryTests.ride()
        let figures = try store.figures(of: id)
        let summary = try store.summary(of: id)
        #expect(summary.figures == figures)
        #expect(summary.distanceMeters == figures.distanceMeters && summary.durationMs == figures.durationMs)
        #expect(figures.durationMs == 3_000 && figures.movingMs == 2_500)
        #expect(figures.headline == "11 m in 0:00:03")
        #expect(summary.figures.altitudeText == "barometric, above the start: 0.0 → 4.2 m, range 0.0 to 4.2 m, climb 2.1 m")
        // A privacy filter's hidden fixes and samples count for nothing.
        let zone = try #require(PrivacyZone(latitude: 51, longitude: 13, radius: 5))
        let hidden = try store.figures(of: id, privacy: PrivacyFilter(zones: [zone], fixes: try store.fixes(of: id)))
        #expect(hidden.distanceMeters < figures.distanceMeters)
    }
}
