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
        #expect(plot.status == 0 && plot.stdout == "wrote \(path)\n" && plot.stderr.isEmpty, "\(plot.stdout)\(plot.stderr)")
        return path
    }

    /// One ride, one set of figures: `show`, the plot's title and the GPX export's description
    /// state the same distance, duration and altitude, and say where the altitude comes from.
    @Test func showThePlotAndTheExportStateTheSameFigures() throws {
        let cli = CLI()
        let svg = try String(contentsOfFile: try Self.bundledRide(cli), encoding: .utf8)
        let show = try cli.run(["show", "1"]).stdout
        func line(_ prefix: String) throws -> String {
            String(try #require(show.split(separator: "\n").first { $0.hasPrefix(prefix) }, "\(show)").dropFirst(prefix.count))
        }
        // `2.34 km in 0:10:00, 0:09:00 moving (distance over clean fixes)`
        let headline = try line("  ride      ").prefix { $0 != "(" }.trimmingCharacters(in: .whitespaces)
        let altitude = try line("  altitude  ")
        #expect(headline.contains(" km in 0:") && altitude.hasPrefix("barometric, above the start: 0.0 → "), "\(show)")
        func element(_ name: String, in text: String) -> String? {
            guard let open = text.range(of: "<\(name)>"), let close = text.range(of: "</\(name)>", range: open.upperBound..<text.endIndex)
            else { return nil }
            return String(text[open.upperBound..<close.lowerBound])
        }
        #expect(element("title", in: svg)?.hasSuffix(" · " + headline) == true, "\(element("title", in: svg) ?? "no title")")
        #expect(svg.contains(">altitude (m, barometric)<") && svg.contains(">barometric, above the start<"))
        let gpx = try cli.run(["export", "1", "--format", "gpx"])
        #expect(gpx.status == 0, "\(gpx.stderr)")
        #expect(element("desc", in: gpx.stdout) == headline + "; altitude " + altitude)
        // The JSON has the same figures, unrounded.
        let figures = try cli.json(["show", "1"])["figures"] as? [String: Any] ?? [:]
        let metres = try #require(figures["distanceMeters"] as? Double)
        #expect(headline.hasPrefix(String(format: "%.2f km in ", metres / 1000)), "\(figures)")
        #expect((figures["altitude"] as? [String: Any])?["source"] as? String == "barometric")
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
