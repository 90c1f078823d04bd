import CaptureCore
import CaptureSurface
import Foundation
import Testing

/// The pure parts: statistics, classes, the gravity filter, the distance windows, the grid.
@Suite struct SurfaceCoreTests {
    /// A deterministic generator, so a failure repeats.
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state
        }
    }

    @Test func welfordMatchesTheTwoPassFigures() {
        let values = [2.0, 4, 4, 4, 5, 5, 7, 9]
        var statistics = SurfaceStatistics()
        for value in values { statistics.add(value) }
        #expect(statistics.count == 8)
        #expect(abs(statistics.mean - 5) < 1e-12)
        #expect(abs(statistics.m2 - 32) < 1e-12)
        #expect(abs(statistics.standardDeviation - 2) < 1e-12)
    }

    @Test func chanMergeIsExactInAnyOrder() {
        var random = Seeded(state: 7)
        let values = (0..<10_000).map { _ in Double.random(in: -3...5, using: &random) + 1_000 }
        var whole = SurfaceStatistics()
        for value in values { whole.add(value) }
        // Uneven parts, merged in a scrambled order.
        var parts: [SurfaceStatistics] = []
        var index = 0
        for size in [1, 2, 997, 3_000, 0, 6_000] {
            var part = SurfaceStatistics()
            for value in values[index..<min(index + size, values.count)] { part.add(value) }
            parts.append(part)
            index += size
        }
        var merged = SurfaceStatistics()
        for part in [parts[3], parts[0], parts[5], parts[4], parts[2], parts[1]] { merged.merge(part) }
        #expect(merged.count == whole.count)
        #expect(abs(merged.mean - whole.mean) < 1e-9)
        #expect(abs(merged.m2 - whole.m2) / whole.m2 < 1e-9)
    }

    @Test func classesFollowTheThresholdsOfTheModality() {
        let thresholds = SurfaceThresholds.standard
        #expect(thresholds.surfaceClass(0.5, modality: "BICYCLE") == 0)
        #expect(thresholds.surfaceClass(1.2, modality: "BICYCLE") == 1)
        #expect(thresholds.surfaceClass(3.0, modality: "BICYCLE") == 2)
        #expect(thresholds.surfaceClass(9.0, modality: "BICYCLE") == 3)
        #expect(thresholds.surfaceClass(1.0, modality: "CAR") == 1)
        #expect(thresholds.surfaceClass(1.0, modality: "SCOOTER") == 0)
        let parsed = SurfaceThresholds.parse("car=1,2,3;*=0.1,0.2,0.3")
        #expect(parsed?.surfaceClass(1.5, modality: "CAR") == 1)
        #expect(parsed?.surfaceClass(0.25, modality: "SCOOTER") == 2)
        #expect(parsed?.surfaceClass(1.5, modality: "BICYCLE") == 1)
        #expect(SurfaceThresholds.parse("CAR=3,2,1") == nil)
        #expect(SurfaceThresholds.parse("CAR=1,2") == nil)
        #expect(SurfaceThresholds.parse("CAR") == nil)
    }

    /// A box tilted on two axes reads gravity on all three; the filter finds "up" anyway, and
    /// the vertical vibration's standard deviation comes out whole.
    @Test func gravityFilterFindsUpOnATiltedMount() {
        var random = Seeded(state: 3)
        var filter = GravityFilter()
        // Up in the device frame: tilted 40° from z.
        let tilt = 40.0 * .pi / 180
        let up = (x: sin(tilt) * cos(0.7), y: sin(tilt) * sin(0.7), z: cos(tilt))
        var statistics = SurfaceStatistics()
        for i in 0..<60_000 {
            let vibration = (Double.random(in: -1...1, using: &random)) * 3.0.squareRoot()  // sd 1
            let side = Double.random(in: -1...1, using: &random)  // across "up"
            let a = 9.80665 + vibration
            let x = a * up.x + side * up.z
            let y = a * up.y
            let z = a * up.z - side * up.x
            let vertical = filter.vertical(time: Int64(i * 10), x: x, y: y, z: z)
            if i > 1_000 { statistics.add(vertical) }
        }
        #expect(abs(statistics.standardDeviation - 1) < 0.02, "sd \(statistics.standardDeviation)")
        #expect(abs(statistics.mean) < 0.02)
        #expect(abs((filter.tilt ?? 0) - 40) < 0.5, "tilt \(filter.tilt ?? -1)")
    }

    /// Fixes 5 m apart northwards at 1 Hz: windows of 10 m last 2 s, the rest of the track is
    /// one partial window, a hidden fix takes out the windows it touches.
    @Test func windowsAreCutByDistance() {
        let metresPerDegree = Double.pi * 6_371_000 / 180
        func fix(_ second: Int) -> Fix {
            Fix(timestamp: Int64(second) * 1000, latitude: 51 + Double(second) * 5 / metresPerDegree, longitude: 13)
        }
        var cutter = DistanceWindows(length: 10)
        for second in 0...21 { cutter.add(fix(second), hidden: false) }
        cutter.endTrack()
        #expect(cutter.windows.count == 10)
        #expect(cutter.partial == 1)
        let first = cutter.windows[0]
        #expect(abs(Double(first.end - first.start) - 2000) <= 2)
        #expect(abs(first.speed - 5) < 0.01)
        #expect(first.points.count == 3)

        var hidden = DistanceWindows(length: 10)
        for second in 0...20 { hidden.add(fix(second), hidden: second == 9) }
        hidden.endTrack()
        // Fix 9 (45 m) touches the steps 8→9 and 9→10: the windows 40–50 m and, at most, 30–40.
        #expect(hidden.hidden >= 1 && hidden.hidden <= 2)
        #expect(hidden.windows.count + hidden.hidden == 10)
        #expect(!hidden.windows.contains { $0.start < 9000 && $0.end > 9000 })
    }

    @Test func gridMergesWindowsOfRidesExactly() {
        func window(_ measurement: Int64, _ values: [Double], latitude: Double) -> SurfaceWindow {
            var statistics = SurfaceStatistics()
            for value in values { statistics.add(value) }
            return SurfaceWindow(
                measurement: measurement, index: 1, track: 1, modality: "BICYCLE", start: 0, end: 2000,
                points: [.init(latitude: latitude, longitude: 13), .init(latitude: latitude + 0.00005, longitude: 13.00001)],
                distance: 10, speed: 5, statistics: statistics, surfaceClass: 0)
        }
        var grid = SurfaceGrid()
        grid.add(window(1, [1, 2, 3], latitude: 51.000001))
        grid.add(window(2, [4, 5], latitude: 51.000011))
        grid.add(window(2, [9], latitude: 51.01))
        let cells = grid.cells(thresholds: .standard)
        #expect(cells.count == 2)
        let shared = cells.first { $0.windows == 2 }
        #expect(shared?.rides == 2)
        #expect(shared?.statistics.count == 5)
        #expect(abs((shared?.statistics.mean ?? 0) - 3) < 1e-12)
        #expect(abs((shared?.statistics.m2 ?? 0) - 10) < 1e-12)
        // A cell is about 20 m on each side.
        if let outline = shared?.outline {
            let south = Geodesy.distance(from: (outline[0].latitude, outline[0].longitude), to: (outline[1].latitude, outline[1].longitude))
            let west = Geodesy.distance(from: (outline[0].latitude, outline[0].longitude), to: (outline[3].latitude, outline[3].longitude))
            #expect(abs(south - 20) < 0.1 && abs(west - 20) < 0.1, "\(south) × \(west)")
        }
    }
}
