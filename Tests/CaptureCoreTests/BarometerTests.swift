import CaptureCore
import CaptureIIO
import Testing

@Suite struct BarometerTests {
    @Test(arguments: [(1000.0, 110.9), (950.0, 540.4), (900.0, 988.6), (850.0, 1457.5)])
    func standardAtmosphereTable(pressure: Double, metres: Double) throws {
        let altitude = try #require(BarometricAltitude.altitude(pressure: pressure))
        #expect(abs(altitude - metres) <= 0.2)
    }

    @Test func seaLevelAndQNH() throws {
        #expect(BarometricAltitude.altitude(pressure: 1013.25) == 0)
        // A local QNH of 1000 hPa puts 1000 hPa at sea level.
        #expect(BarometricAltitude.altitude(pressure: 1000, seaLevelPressure: 1000) == 0)
        // From IIO kPa.
        let hPa = IIOUnits.hectopascals(fromKilopascals: 100.0)
        #expect(abs(try #require(BarometricAltitude.altitude(pressure: hPa)) - 110.9) <= 0.2)
        for bad in [0.0, -5.0, .nan, .infinity] {
            #expect(BarometricAltitude.altitude(pressure: bad) == nil)
        }
        #expect(BarometricAltitude.altitude(pressure: 1000, seaLevelPressure: 0) == nil)
    }

    @Test func relativeAltitude() throws {
        let climb = try #require(BarometricAltitude.relativeAltitude(pressure: 950, reference: 1000))
        #expect(abs(climb - (540.4 - 110.9)) <= 0.2)
        // Near sea level about 8.3 m per hPa.
        let oneHPa = try #require(BarometricAltitude.relativeAltitude(pressure: 1012.25, reference: 1013.25))
        #expect(abs(oneHPa - 8.3) < 0.1)
        #expect(BarometricAltitude.relativeAltitude(pressure: 0, reference: 1000) == nil)
    }

    @Test func trackerIsRelativeToTheFirstValidSample() throws {
        var tracker = RelativeAltitudeTracker()
        #expect(tracker.relativeAltitude(for: PressureSample(timestamp: 0, hectopascals: -1)) == nil)
        #expect(tracker.reference == nil)
        #expect(tracker.relativeAltitude(for: PressureSample(timestamp: 1, hectopascals: 1000)) == 0)
        let up = tracker.relativeAltitude(for: PressureSample(timestamp: 2, hectopascals: 950))
        #expect(abs(try #require(up) - 429.5) <= 0.2)
        #expect(tracker.reference == 1000)
    }
}
