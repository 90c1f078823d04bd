import CaptureTestSupport
import Foundation
import Testing

/// `capture plot`: the command, the picture a browser makes of it, and the README's copy.
@Suite struct PlotEndToEndTests {
    /// The bundled ride, plotted by the built binary.
    static func bundledRide(_ cli: CLI) throws -> String {
        #expect(try cli.run(["replay", cli.fixture("bicycle.trace")]).status == 0)
        let path = cli.dataDirectory + "/ride.svg"
        let plot = try cli.run(["plot", "1", "-o", path])
        #expect(plot.status == 0 && plot.stdout.isEmpty && plot.stderr.isEmpty, "\(plot.stderr)")
        return path
    }

    /// The README shows docs/ride.svg: it must be what this build draws of the bundled ride.
    @Test func theReadmePictureIsTheBundledRideAsDrawnToday() throws {
        let cli = CLI()
        let path = try Self.bundledRide(cli)
        let drawn = try #require(FileManager.default.contents(atPath: path))
        let committed = try #require(FileManager.default.contents(atPath: Repository.root + "/docs/ride.svg"))
        #expect(
            drawn == committed,
            "docs/ride.svg is stale; redraw it: capture replay fixtures/bicycle.trace --data-dir D && capture plot 1 --data-dir D -o docs/ride.svg"
        )
        let readme = try String(contentsOfFile: Repository.root + "/README.md", encoding: .utf8)
        #expect(readme.prefix(2_500).contains("src=\"docs/ride.svg\""), "the README's first screen shows the plot")
    }

    /// Headless Chromium (Debian's chromium) renders the SVG to PNG: the right size, not blank,
    /// the track's speed colours and the modality mark's purple are there.
    @Test func aBrowserRendersIt() throws {
        guard let chromium = Program.require("chromium", package: "chromium"),
            let python = Program.require("python3", package: "pillow, from PyPI")
        else { return }
        let cli = CLI()
        let svg = try Self.bundledRide(cli)
        let png = cli.dataDirectory + "/ride.png"
        let render = try Program.run(
            chromium,
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--user-data-dir=\(cli.dataDirectory)/chromium",
                "--window-size=960,1080", "--screenshot=\(png)", "file://" + svg,
            ])
        #expect(render.status == 0, "\(render.stderr)")
        let measure = try Program.run(
            python,
            [
                "-c",
                """
                import json, sys
                from PIL import Image
                image = Image.open(sys.argv[1]).convert("RGB")
                pixels = list(image.getdata())
                def near(colour, tolerance=40):
                    r, g, b = int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)
                    return sum(1 for p in pixels if abs(p[0] - r) + abs(p[1] - g) + abs(p[2] - b) < tolerance)
                colours = sys.argv[2].split(",")
                print(json.dumps({"size": image.size, "white": sum(1 for p in pixels if p == (255, 255, 255)) / len(pixels),
                                  "distinct": len(set(pixels)), "track": {c: near(c) for c in colours}, "purple": near("#7b3294")}))
                """,
                png, "#3b4cc0,#4f94d4,#3fb68e,#9acd32,#f2c12e,#f07f2a,#d7301f",
            ])
        #expect(measure.status == 0, "\(measure.stderr)")
        let figures = try #require(try JSONSerialization.jsonObject(with: Data(measure.stdout.utf8)) as? [String: Any])
        #expect(figures["size"] as? [Int] == [960, 1080])
        let white = try #require(figures["white"] as? Double)
        #expect(white < 0.8 && white > 0.2, "share of white pixels: \(white)")
        #expect((figures["distinct"] as? Int ?? 0) > 200, "antialiased lines and text give many colours")
        let track = try #require(figures["track"] as? [String: Int])
        #expect(track.values.filter { $0 > 100 }.count >= 3, "the track in at least three speed colours: \(track)")
        #expect((figures["purple"] as? Int ?? 0) > 30, "the change to WALKING is marked")
    }

    @Test func anUnknownMeasurementIsNotFoundAndWritesNothing() throws {
        let cli = CLI()
        #expect(try cli.run(["replay", cli.fixture("car.trace")]).status == 0)
        let path = cli.dataDirectory + "/none.svg"
        let result = try cli.run(["plot", "7", "-o", path])
        #expect(result.status == 66)
        #expect(result.stderr.hasPrefix("capture: ") && result.stderr.contains("7"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: path))
        // The same picture through export.
        let exported = try cli.run(["export", "1", "--format", "svg"])
        let plotted = try cli.run(["plot", "1"])
        #expect(exported.status == 0 && exported.stdout == plotted.stdout && plotted.stdout.hasPrefix("<?xml"))
    }
}
