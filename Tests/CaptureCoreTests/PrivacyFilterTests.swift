import Testing
@testable import CaptureCore

@Suite struct PrivacyFilterTests {
    /// Fixes one second apart heading east from (51.05, 13.73), about 7 m apart.
    static func fixes(_ count: Int) -> [Fix] {
        (0..<count).map { Fix(timestamp: 1_000 * Int64($0), latitude: 51.05, longitude: 13.73 + Double($0) * 1e-4) }
    }

    @Test func stretchesRunFromTheLastFixOutsideToTheFirstFixOutside() throws {
        let fixes = Self.fixes(40)
        // Around fix 25, 30 m: fixes 21…29 (28 m either way) inside, 20 and 30 (35 m) outside.
        let middle = try #require(PrivacyZone(latitude: 51.05, longitude: fixes[25].longitude, radius: 30))
        // Around fix 0, 15 m: fixes 0…2 inside.
        let start = try #require(PrivacyZone(latitude: 51.05, longitude: 13.73, radius: 15))
        let filter = PrivacyFilter(zones: [middle, start], fixes: fixes)
        #expect(filter.stretches == [.init(after: .min, before: 3_000), .init(after: 20_000, before: 30_000)])
        #expect(fixes.indices.filter { filter.hides(fixes[$0]) } == [0, 1, 2] + Array(21...29))
        for time: Int64 in [-5, 0, 2_999, 20_001, 25_000, 29_999] { #expect(filter.hides(time: time), "\(time)") }
        for time: Int64 in [3_000, 10_000, 20_000, 30_000, 50_000] { #expect(!filter.hides(time: time), "\(time)") }
        #expect(filter.overlaps(first: 19_000, last: 20_001))
        #expect(!filter.overlaps(first: 3_000, last: 20_000))
        #expect(filter.overlaps(first: 29_999, last: 40_000))
        #expect(!filter.overlaps(first: 30_000, last: 40_000))
        #expect(filter.overlaps(first: -100, last: -50))
    }

    @Test func aRideEndingInsideIsHiddenToItsEndAndNoZonesHideNothing() throws {
        let fixes = Self.fixes(10)
        let end = try #require(PrivacyZone(latitude: 51.05, longitude: fixes[9].longitude, radius: 10))
        let filter = PrivacyFilter(zones: [end], fixes: fixes)
        #expect(filter.stretches == [.init(after: 7_000, before: .max)])
        #expect(filter.hides(time: .max - 1) && !filter.hides(time: 7_000))
        #expect(PrivacyFilter(zones: [], fixes: fixes).hidesNothing)
        let elsewhere = try #require(PrivacyZone(latitude: 48.1, longitude: 11.5, radius: 500))
        let none = PrivacyFilter(zones: [elsewhere], fixes: fixes)
        #expect(none.hidesNothing && !none.hides(fixes[0]) && !none.hides(time: 5_000))
    }
}
