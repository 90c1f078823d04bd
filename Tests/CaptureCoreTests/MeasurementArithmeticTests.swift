import CaptureCore
import Testing

/// The report arithmetic that `show` and the exports share: modality at a time, barometric profile.
@Suite struct MeasurementArithmeticTests {
    @Test func modalityInForceIsTheLastChangeAtOrBeforeTheTime() {
        let events = [
            Event(timestamp: 100, type: .lifecycleStart), Event(timestamp: 100, type: .modalityTypeChange, value: "CAR"),
            Event(timestamp: 300, type: .modalityTypeChange, value: "WALKING"), Event(timestamp: 400, type: .lifecyclePause),
        ]
        #expect(Modality.spelling(at: 50, events: events, initial: "BICYCLE") == "BICYCLE")
        #expect(Modality.spelling(at: 100, events: events, initial: "BICYCLE") == "CAR")
        #expect(Modality.spelling(at: 299, events: events, initial: "BICYCLE") == "CAR")
        #expect(Modality.spelling(at: 300, events: events, initial: "BICYCLE") == "WALKING")
        #expect(Modality.spelling(at: 10_000, events: events, initial: "BICYCLE") == "WALKING")
        // A spelling this version does not know is kept as stored.
        #expect(Modality.spelling(at: 10, events: [Event(timestamp: 0, type: .modalityTypeChange, value: "SCOOTER")], initial: "CAR") == "SCOOTER")
        #expect(Modality.spelling(at: 10, events: [], initial: "UNKNOWN") == "UNKNOWN")
    }

    @Test func relativeProfileStartsAtZero() throws {
        let profile = try #require(BarometricProfile(hectopascals: [1000.5, 1000.25, 1000.0], qnh: nil))
        #expect(profile.kind == .relative)
        #expect(profile.seaLevelPressure == BarometricAltitude.standardSeaLevelPressure)
        #expect(profile.firstPressure == 1000.5 && profile.lastPressure == 1000.0)
        #expect(profile.start == 0 && profile.min == 0)
        // About 8.3 m per hPa near sea level: half a hPa is about 4.2 m.
        #expect(abs(profile.end - 4.206) < 0.001 && profile.max == profile.end)
        // Smoothed over the first 1, 2, 3 samples: 0, 1.05, 2.10 m.
        #expect(abs(profile.climb - 2.103) < 0.001)
    }

    @Test func absoluteProfileWithQNHAndInvalidSamples() throws {
        let profile = try #require(BarometricProfile(hectopascals: [0, 1000.5, .nan, 1000.0], qnh: 1020))
        #expect(profile.kind == .absolute && profile.seaLevelPressure == 1020)
        // Invalid pressures give no height, but the first and last pressures are reported as read.
        #expect(profile.firstPressure == 0 && profile.lastPressure == 1000.0)
        #expect(abs(profile.start - 162.535) < 0.001 && abs(profile.end - 166.736) < 0.001)
        #expect(BarometricProfile(hectopascals: [], qnh: nil) == nil)
        #expect(BarometricProfile(hectopascals: [0, -1], qnh: nil) == nil)
    }

    @Test func climbIgnoresNoiseBelowTheWindow() {
        // A saw tooth of ±1 m every sample nets almost nothing once smoothed over 20 samples.
        let saw = (0..<200).map { Double($0 % 2) }
        #expect(BarometricProfile.climb(saw) < 5)
        #expect(BarometricProfile.climb(saw, window: 1) == 100)
        // A steady rise climbs by all of it, minus nothing.
        let ramp = (0...100).map(Double.init)
        #expect(abs(BarometricProfile.climb(ramp) - (100 - 9.5)) < 1e-9)
        #expect(BarometricProfile.climb([]) == 0)
    }
}
