import CaptureTestSupport
import Foundation
import Testing

@Suite struct ReplayEndToEndTests {
    @Test(arguments: ["bicycle", "car"])
    func replayMatchesTheGoldenShowOutput(name: String) throws {
        let cli = CLI()
        let replay = try cli.run(["replay", cli.fixture("\(name).trace")])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stdout == "1\n")
        let show = try cli.run(["show", "1", "--json"])
        let golden = try String(contentsOfFile: cli.fixture("golden/\(name).show.json"), encoding: .utf8)
        #expect(show.stdout == golden, "capture show --json differs from fixtures/golden/\(name).show.json; if intended, run scripts/update-goldens")
    }

    @Test func aMalformedTraceNamesFileAndLineAndStoresNothing() throws {
        let cli = CLI()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID().uuidString).trace").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let good = (0..<3000).map { "acc \(1_000 + $0 * 10) 0.1 0.2 9.81" }
        try (["#capture-trace v1"] + good + ["acc 99999 0.1 zero 9.81"]).joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let result = try cli.run(["replay", path])
        #expect(result.status == 65)
        #expect(result.stderr == "capture: \(path):3002: expected a number for the y axis (m/s²), found 'zero'\n")
        #expect(try cli.run(["list", "--json"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[\n\n]" || cli.run(["list", "--json"]).stdout.contains("[]"))
        #expect(try cli.run(["replay", "/nonexistent.trace"]).status == 66)
        #expect(try cli.run(["replay", cli.fixture("car.trace"), "--speed", "0"]).status == 64)
    }

    @Test func listShowAndDelete() throws {
        let cli = CLI()
        #expect(try cli.run(["replay", cli.fixture("car.trace")]).status == 0)
        #expect(try cli.run(["replay", cli.fixture("car.trace"), "--modality", "bus"]).status == 0)
        let list = try cli.run(["list"])
        #expect(list.stdout.contains("CAR") && list.stdout.contains("BUS"))
        let declined = try cli.run(["delete", "1"], input: "n\n")
        #expect(declined.status == 64)
        // Issue 46: piped, the prompt and the refusal shared a line.
        #expect(declined.stderr.hasSuffix("? [y/N] \ncapture: not deleted (answer y to delete, or pass --yes)\n"), "\(declined.stderr)")
        #expect(try cli.run(["show", "1"]).status == 0)
        let confirmed = try cli.run(["delete", "1"], input: "y\n")
        #expect(confirmed.status == 0)
        #expect(try cli.run(["show", "1"]).status == 66)
        #expect(try cli.run(["delete", "2", "--yes"]).status == 0)
        #expect(try cli.run(["replay", cli.fixture("car.trace")]).stdout == "3\n")
    }

    /// The bundled ride changes to WALKING inside its second track: exported to GPX, GeoJSON or
    /// CSV and replayed, every fix keeps its track and its modality.
    @Test(arguments: ["gpx", "geojson", "csv"])
    func aModalityChangeInsideATrackSurvivesTheRoundTrip(format: String) throws {
        let original = CLI()
        #expect(try original.run(["replay", original.fixture("bicycle.trace")]).status == 0)
        let exported = original.dataDirectory + "-export." + format
        defer { try? FileManager.default.removeItem(atPath: exported) }
        let export = format == "csv" ? ["export", "1", "--format", "csv", "--table", "locations"] : ["export", "1", "--format", format]
        let written = try original.run(export)
        #expect(written.status == 0, "\(written.stderr)")
        try written.stdout.write(toFile: exported, atomically: true, encoding: .utf8)
        let again = CLI()
        let replayed = try again.run(["replay", exported])
        #expect(replayed.status == 0, "\(replayed.stderr)")
        /// (time, track, modality) of every fix, from the locations table.
        func fixes(_ cli: CLI) throws -> [String] {
            let table = try cli.run(["export", "1", "--format", "csv", "--table", "locations"]).stdout
            let lines = table.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
            guard let header = lines.first, let modality = header.firstIndex(of: "modality") else { return [] }
            return lines.dropFirst().map { "\($0[0]) \($0[1]) \($0[modality])" }
        }
        let before = try fixes(original)
        #expect(Set(before.map { $0.split(separator: " ")[2] }) == ["BICYCLE", "WALKING"])
        #expect(try fixes(again) == before)
    }
}
