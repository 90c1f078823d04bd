import Testing
@testable import CaptureCore

/// Degrees from degrees, minutes and seconds; the sign of `degrees` applies to the whole angle.
private func dms(_ degrees: Double, _ minutes: Double, _ seconds: Double) -> Double {
    let magnitude = abs(degrees) + minutes / 60 + seconds / 3600
    return degrees < 0 ? -magnitude : magnitude
}

/// A fix that passes the cleaning rule unless a field is overridden.
private func fix(
    _ latitude: Double, _ longitude: Double, speed: Double? = 5, accuracy: Double? = 5,
    at timestamp: Int64 = 0
) -> Fix {
    Fix(
        timestamp: timestamp, latitude: latitude, longitude: longitude,
        horizontalAccuracy: accuracy, speed: speed)
}

/// Half a WGS-84 meridian (pole to pole), metres: the longest possible geodesic.
private let halfMeridian = 20_003_931.458_6

@Suite struct GeodesyDistanceTests {
    /// Vincenty (1975), test line (a) as published by Geoscience Australia.
    @Test func flindersPeakToBuninyong() {
        let flinders = (latitude: dms(-37, 57, 3.72030), longitude: dms(144, 25, 29.52440))
        let buninyong = (latitude: dms(-37, 39, 10.15610), longitude: dms(143, 55, 35.38390))
        let metres = Geodesy.distance(from: flinders, to: buninyong)
        #expect(abs(metres - 54_972.271) <= 0.001)
        #expect(abs(Geodesy.distance(from: buninyong, to: flinders) - metres) <= 1e-6)
    }

    @Test func oneDegreeOfLatitudeAtTheEquator() {
        let metres = Geodesy.distance(from: (0, 0), to: (1, 0))
        #expect(abs(metres - 110_574.4) <= 0.5)
        #expect(abs(Geodesy.distance(from: (-0.5, 0), to: (0.5, 0)) - 110_574.4) <= 0.5)
    }

    @Test func oneDegreeOfLatitudeAtSixtyDegrees() {
        let metres = Geodesy.distance(from: (59.5, 10), to: (60.5, 10))
        #expect(abs(metres - 111_412.2) <= 0.5)
    }

    @Test func oneDegreeOfLongitudeAlongTheEquator() {
        let metres = Geodesy.distance(from: (0, 0), to: (0, 1))
        #expect(abs(metres - 111_319.49) <= 0.1)
    }

    @Test(arguments: [(0.0, 0.0), (51.0504, 13.7373), (-90, 0), (90, 45), (-33.9, -180)])
    func coincidentPointsAreZeroApart(latitude: Double, longitude: Double) {
        #expect(Geodesy.distance(from: (latitude, longitude), to: (latitude, longitude)) == 0)
    }

    @Test func longitudesAreTakenModulo360() {
        #expect(Geodesy.distance(from: (10, 180), to: (10, -180)) == 0)
        let across = Geodesy.distance(from: (0, 179.5), to: (0, -179.5))
        #expect(abs(across - 111_319.49) <= 0.1)
    }

    @Test func poleToPoleIsHalfAMeridian() {
        let metres = Geodesy.distance(from: (90, 0), to: (-90, 0))
        #expect(abs(metres - halfMeridian) <= 0.001)
    }

    /// Exactly antipodal points on the equator: Vincenty's λ leaves −π…π, and the geodesic runs over
    /// a pole, so the distance is half a meridian (not half the equator, 20 037 508 m).
    @Test func antipodalPointsOnTheEquator() {
        let p1 = Geodesy.Point(latitude: 0, longitude: 0)
        let p2 = Geodesy.Point(latitude: 0, longitude: 180)
        #expect(Geodesy.vincentyInverse(p1, p2) == nil)
        let metres = Geodesy.distance(from: (0, 0), to: (0, 180))
        #expect(metres.isFinite)
        #expect(abs(metres - 20_003_931) <= 0.005 * 20_003_931)
        #expect(abs(metres - halfMeridian) <= 0.001)
    }

    /// The classic example of non-convergence (0°, 0° → 0.5°, 179.7°) and Karney's antipodal example
    /// (−30°, 0° → 29.9°, 179.8°; "Algorithms for geodesics", 2013: s₁₂ = 19 989 832.827 61 m).
    @Test func nearlyAntipodalPointsWhereVincentyFails() {
        #expect(
            Geodesy.vincentyInverse(
                Geodesy.Point(latitude: 0, longitude: 0), Geodesy.Point(latitude: 0.5, longitude: 179.7))
                == nil)
        let classic = Geodesy.distance(from: (0, 0), to: (0.5, 179.7))
        #expect(classic.isFinite)
        #expect(classic > 19_900_000 && classic < halfMeridian)

        #expect(
            Geodesy.vincentyInverse(
                Geodesy.Point(latitude: -30, longitude: 0), Geodesy.Point(latitude: 29.9, longitude: 179.8))
                == nil)
        let karney = Geodesy.distance(from: (-30, 0), to: (29.9, 179.8))
        #expect(abs(karney - 19_989_832.827_61) <= 0.001)
    }

    /// Slow for Vincenty, but it still converges; GeographicLib gives 19 936 288.579 m.
    @Test func nearlyAntipodalPointsWhereVincentyConvergesSlowly() {
        let metres = Geodesy.distance(from: (0, 0), to: (0.5, 179.5))
        #expect(abs(metres - 19_936_288.579) <= 0.001)
    }

    /// The fallback is a complete solver: where Vincenty converges, both agree to well under 1 mm.
    @Test func fallbackAgreesWithVincentyWhereVincentyConverges() throws {
        let latitudes = [-89.0, -60.0, -30.0, -1.0, 0.0, 0.5, 20.0, 45.0, 75.0, 90.0]
        let longitudes = [0.001, 1.0, 45.0, 90.0, 135.0, 170.0, 178.0, 179.0]
        var compared = 0
        for lat1 in latitudes {
            for lat2 in latitudes {
                for lon in longitudes {
                    let p1 = Geodesy.Point(latitude: lat1, longitude: 0)
                    let p2 = Geodesy.Point(latitude: lat2, longitude: lon)
                    guard let vincenty = Geodesy.vincentyInverse(p1, p2) else { continue }
                    let fallback = Geodesy.antipodalDistance(p1, p2)
                    #expect(
                        abs(vincenty - fallback) <= 0.000_5,
                        "\(lat1), 0 → \(lat2), \(lon): Vincenty \(vincenty), fallback \(fallback)")
                    compared += 1
                }
            }
        }
        #expect(compared > 700)
    }

    @Test func nonFiniteInputGivesNaN() {
        #expect(Geodesy.distance(from: (.nan, 0), to: (0, 0)).isNaN)
        #expect(Geodesy.distance(from: (0, 0), to: (0, .infinity)).isNaN)
    }
}

@Suite struct LocationCleaningTests {
    @Test func ordinaryFixIsClean() {
        #expect(LocationCleaning.isClean(fix(51, 13, speed: 4.2, accuracy: 5)))
    }

    @Test(arguments: [1.0, 100.0, 0.0, 0.5, -1.0, 100.5, .nan, .infinity])
    func speedOutsideTheOpenIntervalIsNotClean(speed: Double) {
        #expect(!LocationCleaning.isClean(fix(51, 13, speed: speed, accuracy: 5)))
    }

    @Test func speedJustInsideTheBoundsIsClean() {
        #expect(LocationCleaning.isClean(fix(51, 13, speed: 1.0.nextUp, accuracy: 5)))
        #expect(LocationCleaning.isClean(fix(51, 13, speed: 100.0.nextDown, accuracy: 5)))
    }

    @Test func accuracyOfTwentyMetresOrWorseIsNotClean() {
        #expect(!LocationCleaning.isClean(fix(51, 13, speed: 5, accuracy: 20)))
        #expect(!LocationCleaning.isClean(fix(51, 13, speed: 5, accuracy: 35)))
        #expect(!LocationCleaning.isClean(fix(51, 13, speed: 5, accuracy: .nan)))
        #expect(LocationCleaning.isClean(fix(51, 13, speed: 5, accuracy: 20.0.nextDown)))
    }

    @Test func unknownSpeedOrAccuracyIsNotClean() {
        #expect(!LocationCleaning.isClean(fix(51, 13, speed: nil, accuracy: 5)))
        #expect(!LocationCleaning.isClean(fix(51, 13, speed: 5, accuracy: nil)))
        #expect(!LocationCleaning.isClean(fix(51, 13, speed: nil, accuracy: nil)))
    }
}

@Suite struct TrackDistanceTests {
    @Test func sumsConsecutiveCleanFixes() {
        let track = [fix(0, 0, at: 0), fix(0, 1, at: 1), fix(0, 2, at: 2)]
        let metres = Geodesy.trackDistance(track)
        #expect(abs(metres - 2 * 111_319.490_8) <= 0.01)
    }

    @Test func skipsUncleanFixesAndJoinsTheCleanOnes() {
        let track = [
            fix(0, 0, at: 0),
            fix(10, 1, speed: 0.2, at: 1),  // standing still
            fix(0, 1, at: 2),
            fix(-10, 1.5, speed: 5, accuracy: 20, at: 3),  // inaccurate
            fix(5, 1.5, speed: nil, at: 4),  // unknown speed
            fix(0, 2, at: 5),
            fix(3, 3, speed: 150, at: 6),  // glitch at the end
        ]
        let expected = Geodesy.distance(from: (0, 0), to: (0, 1))
            + Geodesy.distance(from: (0, 1), to: (0, 2))
        #expect(Geodesy.trackDistance(track) == expected)
    }

    @Test func fewerThanTwoCleanFixesGiveZero() {
        #expect(Geodesy.trackDistance([]) == 0)
        #expect(Geodesy.trackDistance([fix(0, 0)]) == 0)
        #expect(Geodesy.trackDistance([fix(0, 0), fix(0, 1, speed: 1.0)]) == 0)
    }
}

@Suite struct BoundingBoxTests {
    @Test func noFixesGiveNoBox() {
        #expect(BoundingBox([Fix]()) == nil)
        #expect(Geodesy.boundingBox([]) == nil)
    }

    @Test func coversAllFixesCleanOrNot() throws {
        let fixes = [fix(51.05, 13.74), fix(51.34, 12.37, speed: nil), fix(50.83, 12.92)]
        let box = try #require(Geodesy.boundingBox(fixes))
        #expect(
            box == BoundingBox(
                minLatitude: 50.83, maxLatitude: 51.34, minLongitude: 12.37, maxLongitude: 13.74))
        #expect(fixes.allSatisfy(box.contains))
        #expect(!box.contains(fix(52, 13)))
    }

    @Test func singleFixGivesADegenerateBox() {
        #expect(
            BoundingBox([fix(-33.9, 151.2)])
                == BoundingBox(
                    minLatitude: -33.9, maxLatitude: -33.9, minLongitude: 151.2, maxLongitude: 151.2))
    }
}
