import CaptureStorage
import CaptureSurface
import CaptureTestSupport
import Foundation
import Testing

/// `scripts/make-ride --road`: sections of set vertical vibration, the box mounted at a tilt,
/// speed varying. Each section's estimated standard deviation (its windows merged, away from
/// the section's edges) is within 10 % of the truth, and the classes order the sections.
@Suite(.serialized) struct KnownRoadTests {
    static let road = [(0.6, 300.0), (1.6, 300.0), (2.8, 300.0), (4.5, 300.0)]

    /// The truth in the trace: `# road section K sd S from T`.
    static func sections(of trace: String) throws -> [(sd: Double, start: Int64)] {
        try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").compactMap { line in
            guard line.hasPrefix("# road section ") else { return nil }
            let words = line.split(separator: " ")
            guard words.count == 8, let sd = Double(words[5]), let start = Int64(words[7]) else { return nil }
            return (sd, start)
        }
    }

    @Test(arguments: ["0,0,0", "35,20,60", "90,30,-45", "170,10,0"])
    func sectionsAreEstimatedWithinTenPercent(mount: String) throws {
        let scratch = try SurfaceFixtures.scratch("road")
        let spec = Self.road.map { "\($0.0):\(Int($0.1))" }.joined(separator: ",")
        let trace = try SurfaceFixtures.makeRide(["--road", spec, "--mount", mount], in: scratch, name: "road.trace")
        let truth = try Self.sections(of: trace)
        try #require(truth.count == Self.road.count)
        let store = try SurfaceFixtures.store(in: scratch, replaying: [trace])
        let report = try SurfaceAnalysis.analyse(1, in: store, options: SurfaceOptions())
        #expect(report.windows.count > 80)
        #expect(report.excluded.slow > 0, "the red light half-way is slow")

        // Away from the edges: a window that starts 4 s after its section begins and ends 4 s
        // before the next one does (the vehicle rides 4 to 7 m/s).
        let margin: Int64 = 4_000
        var classes: [[Int]] = []
        for (index, section) in truth.enumerated() {
            let end = index + 1 < truth.count ? truth[index + 1].start : Int64.max
            let inside = report.windows.filter { $0.start >= section.start + margin && $0.end <= end - margin }
            var merged = SurfaceStatistics()
            for window in inside { merged.merge(window.statistics) }
            #expect(inside.count >= 10, "section \(index + 1): \(inside.count) windows")
            let error = abs(merged.standardDeviation - section.sd) / section.sd
            #expect(error < 0.10, "mount \(mount), section \(index + 1): sd \(merged.standardDeviation), truth \(section.sd)")
            classes.append(inside.map(\.surfaceClass).sorted())
        }
        // The thresholds (1.2, 2.2, 3.5 for a bicycle) put each section in its own class.
        let medians = classes.map { $0.isEmpty ? -1 : $0[$0.count / 2] }
        #expect(medians == [0, 1, 2, 3], "mount \(mount): median classes \(medians)")
        if mount != "0,0,0" { #expect(abs((report.tilt ?? 0) - Self.tilt(mount)) < 3, "tilt \(report.tilt ?? -1)") }
    }

    /// The angle between the device's z axis and up, for roll about x then pitch about y
    /// (yaw about z does not tilt).
    static func tilt(_ mount: String) -> Double {
        let angles = mount.split(separator: ",").map { Double($0)! * .pi / 180 }
        // R = Rx(roll) Ry(pitch) Rz(yaw); up (0, 0, 1) in the device frame is R's third column.
        let z = cos(angles[0]) * cos(angles[1])
        return acos(z) * 180 / .pi
    }
}
