import CaptureTestSupport
import Foundation
import Testing

/// `capture surface` and `capture plot --colour surface` as a person runs them: text, JSON, the
/// files, the refusals with their exit codes, and the README's picture.
@Suite struct SurfaceEndToEndTests {
    @Test func textJSONAndFiles() throws {
        let cli = CLI()
        #expect(try cli.run(["replay", cli.fixture("bicycle.trace")]).status == 0)
        let text = try cli.run(["surface", "1"])
        #expect(text.status == 0 && text.stderr.isEmpty, "\(text.stderr)")
        #expect(text.stdout.hasPrefix("measurement 1 (BICYCLE): "), "\(text.stdout)")
        #expect(text.stdout.contains("left out: "))
        let json = try cli.json(["surface", "1"])
        let reports = try #require(json["reports"] as? [[String: Any]])
        let windows = try #require(reports.first?["windows"] as? [[String: Any]])
        #expect(windows.count > 100)
        #expect(windows.allSatisfy { ($0["surfaceClass"] as? Int).map { (0...3).contains($0) } == true })

        let map = cli.dataDirectory + "/map.geojson"
        let merged = try cli.run(["surface", "--all", "--merge", "-o", map])
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stdout.contains("merged: ") && merged.stdout.contains("wrote \(map)"))
        let collection = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: map))) as? [String: Any]
        let cells = try #require(collection?["features"] as? [[String: Any]])
        #expect(!cells.isEmpty)
        #expect((cells[0]["geometry"] as? [String: Any])?["type"] as? String == "Polygon")

        // surface.thresholds from the environment: thresholds below every window's figure.
        let strict = try Program.run(
            "/usr/bin/env",
            ["CAPTURE_SURFACE_THRESHOLDS=BICYCLE=0.01,0.02,0.03;WALKING=0.01,0.02,0.03", CLI.executable, "surface", "1", "--json", "--data-dir", cli.dataDirectory])
        #expect(strict.status == 0, "\(strict.stderr)")
        let strictReports = try JSONSerialization.jsonObject(with: Data(strict.stdout.utf8)) as? [String: Any]
        let strictWindows = ((strictReports?["reports"] as? [[String: Any]])?.first?["windows"] as? [[String: Any]]) ?? []
        #expect(strictWindows.count == windows.count)
        #expect(strictWindows.allSatisfy { $0["surfaceClass"] as? Int == 3 }, "every window is class 3 under these thresholds")

        let gpkg = cli.dataDirectory + "/ride.gpkg"
        #expect(try cli.run(["export", "1", "--format", "gpkg", "-o", gpkg]).status == 0)
        #expect(FileManager.default.fileExists(atPath: gpkg))
    }

    @Test func badInputIsOneLineWithItsExitCode() throws {
        let cli = CLI()
        #expect(try cli.run(["replay", cli.fixture("car.trace")]).status == 0)
        let cases: [([String], [String: String], Int32)] = [
            (["surface"], [:], 64),
            (["surface", "1", "--all"], [:], 64),
            (["surface", "1", "--window", "0"], [:], 64),
            (["surface", "1", "-o", cli.dataDirectory + "/x.kml"], [:], 64),
            (["surface", "7"], [:], 66),
            (["export", "1", "--format", "gpkg"], [:], 64),
            (["surface", "1"], ["CAPTURE_SURFACE_THRESHOLDS": "CAR=2,1,3"], 78),
        ]
        for (arguments, environment, status) in cases {
            let assignments = environment.map { "\($0.key)=\($0.value)" }
            let result = try Program.run("/usr/bin/env", assignments + [CLI.executable] + arguments + ["--data-dir", cli.dataDirectory])
            #expect(result.status == status, "\(arguments): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1 && result.stderr.hasPrefix("capture: "), "\(arguments): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: cli.dataDirectory + "/x.kml"))
    }

    /// The README shows docs/surface.svg: what this build draws of the bundled ride, coloured by
    /// surface class.
    @Test func theReadmePictureIsTheBundledRideAsDrawnToday() throws {
        let cli = CLI()
        #expect(try cli.run(["replay", cli.fixture("bicycle.trace")]).status == 0)
        let path = cli.dataDirectory + "/surface.svg"
        let plot = try cli.run(["plot", "1", "--colour", "surface", "-o", path])
        #expect(plot.status == 0 && plot.stderr.isEmpty, "\(plot.stderr)")
        let drawn = try #require(FileManager.default.contents(atPath: path))
        let committed = try #require(FileManager.default.contents(atPath: Repository.root + "/docs/surface.svg"))
        #expect(
            drawn == committed,
            "docs/surface.svg is stale; redraw it: capture replay fixtures/bicycle.trace --data-dir D && capture plot 1 --colour surface --data-dir D -o docs/surface.svg")
        let svg = String(decoding: drawn, as: UTF8.self)
        #expect(svg.contains("surface class"), "the legend")
        #expect(svg.contains("class=\"s0\"") && svg.contains("class=\"s1\""), "windows of classes 0 and 1 on the track")
        let readme = try String(contentsOfFile: Repository.root + "/README.md", encoding: .utf8)
        let section = try #require(readme.range(of: "## Road surface"))
        #expect(readme[section.upperBound...].contains("src=\"docs/surface.svg\""), "the Road surface section shows it")
    }
}
