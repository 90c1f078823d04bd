import CaptureCore
@testable import CaptureExport
import CaptureStorage
import Foundation
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The elements of an SVG file that the checks look at.
struct SVGElements {
    struct Line {
        var colour: String
        var points: [(x: Double, y: Double)]
    }

    var lines: [Line] = []
    var texts: [String] = []
    /// `translate(x,y)` of each `<g>`, with the first child's element name.
    var marks: [(name: String, x: Double, y: Double)] = []
    var polygons = 0
    var width = 0.0
    var height = 0.0

    init(_ data: Data) throws {
        let reader = Reader()
        let parser = XMLParser(data: data)
        parser.delegate = reader
        guard parser.parse() else { throw CocoaError(.propertyListReadCorrupt, userInfo: ["reason": "\(String(describing: parser.parserError))"]) }
        self = reader.elements
    }

    private init() {}

    private final class Reader: NSObject, XMLParserDelegate {
        var elements = SVGElements()
        var text: String?
        var pendingMark: (x: Double, y: Double)?

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            if let mark = pendingMark {
                elements.marks.append((name, mark.x, mark.y))
                pendingMark = nil
            }
            switch name {
            case "svg":
                elements.width = Double(attributes["width"] ?? "") ?? 0
                elements.height = Double(attributes["height"] ?? "") ?? 0
            case "polyline":
                let points = (attributes["points"] ?? "").split(separator: " ").map { pair in
                    let xy = pair.split(separator: ",").map { Double($0) ?? .nan }
                    return (x: xy[0], y: xy[1])
                }
                elements.lines.append(Line(colour: attributes["class"] ?? "", points: points))
            case "polygon": elements.polygons += 1
            case "g":
                if let transform = attributes["transform"], transform.hasPrefix("translate(") {
                    let xy = transform.dropFirst(10).dropLast().split(separator: ",").map { Double($0) ?? .nan }
                    pendingMark = (xy[0], xy[1])
                }
            case "text": text = ""
            default: break
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text? += string }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            if name == "text", let text {
                elements.texts.append(text)
                self.text = nil
            }
        }
    }
}

@Suite struct PlotGeometryTests {
    @Test func roundSteps() {
        #expect(PlotGeometry.niceStep(10, parts: 5) == 2)
        #expect(PlotGeometry.niceStep(36, parts: 5) == 5)
        #expect(PlotGeometry.niceStep(0.9, parts: 4) == 0.2)
        #expect(PlotGeometry.niceStep(600, parts: 8) == 100)
        #expect(PlotGeometry.niceStep(0) == 1)
        #expect(PlotGeometry.scaleBarLength(atMost: 270) == 200)
        #expect(PlotGeometry.scaleBarLength(atMost: 999) == 500)
        #expect(PlotGeometry.scaleBarLength(atMost: 1_500) == 1_000)
        #expect(PlotGeometry.distanceLabel(200) == "200 m")
        #expect(PlotGeometry.distanceLabel(2_000) == "2 km")
        #expect(PlotGeometry.number(2.5) == "2.5")
        #expect(PlotGeometry.number(-10) == "-10")
    }

    @Test func speedClassesCoverTheScale() {
        let count = PlotGeometry.speedColours.count
        #expect(PlotGeometry.speedClass(0, top: 40) == 0)
        #expect(PlotGeometry.speedClass(18, top: 40) == 3)
        #expect(PlotGeometry.speedClass(39.9, top: 40) == count - 1)
        #expect(PlotGeometry.speedClass(80, top: 40) == count - 1, "above the top is the top colour")
        #expect(PlotGeometry.speedClass(.nan, top: 40) == 0)
    }

    @Test func theProjectionKeepsDistances() {
        let projection = PlotGeometry.Projection(latitude: 51.05, longitude: 13.73)
        for (latitude, longitude) in [(51.05, 13.76), (51.07, 13.73), (51.04, 13.71)] {
            let point = projection.metres(latitude: latitude, longitude: longitude)
            let planar = (point.x * point.x + point.y * point.y).squareRoot()
            let geodesic = Geodesy.distance(from: (51.05, 13.73), to: (latitude, longitude))
            #expect(abs(planar - geodesic) / geodesic < 0.005, "\(planar) m on the map, \(geodesic) m on the ellipsoid")
        }
        // Across the antimeridian: a few metres, not the whole Earth.
        let east = PlotGeometry.Projection(latitude: 0, longitude: 179.9999).metres(latitude: 0, longitude: -179.9999)
        #expect(abs(east.x - 22.24) < 0.1)
    }

    @Test func aFitKeepsTheAspectAndCentres() {
        var extent = PlotGeometry.Extent()
        extent.include((0, 0))
        extent.include((1_000, 500))
        let fit = PlotGeometry.Fit(extent, x: 0, y: 0, width: 400, height: 400)
        #expect(fit.pixelsPerMetre == 0.4)
        #expect(fit.pixel((0, 0)) == (0, 300))
        #expect(fit.pixel((1_000, 500)) == (400, 100))
        // A single point sits in the middle.
        var point = PlotGeometry.Extent()
        point.include((5, 5))
        #expect(PlotGeometry.Fit(point, x: 0, y: 0, width: 100, height: 50).pixel((5, 5)) == (50, 25))
    }

    @Test func binsKeepCountMeanAndSpread() {
        var bins = PlotGeometry.Bins(start: 0, end: 1_000, columns: 10)
        #expect(bins.isEmpty && bins.range == nil)
        bins.add(1, at: 0)
        bins.add(3, at: 99)
        bins.add(7, at: 1_000)
        bins.add(100, at: 1_001)  // outside: ignored
        bins.add(.nan, at: 500)  // not a number: ignored
        #expect(bins.count == [2, 0, 0, 0, 0, 0, 0, 0, 0, 1])
        #expect(bins.mean(0) == 2 && bins.mean(1) == nil && bins.mean(9) == 7)
        #expect(bins.low[0] == 1 && bins.high[0] == 3)
        #expect(bins.range! == (1, 7))
    }
}

@Suite struct PlotTimeAxisTests {
    @Test func theUnitFollowsTheRidesLength() {
        // Up to 2 minutes in seconds, up to 2 hours in minutes, then hours.
        #expect(PlotTimeAxis(spanMs: 45_000).unit == .seconds)
        #expect(PlotTimeAxis(spanMs: 120_000).unit == .seconds)
        #expect(PlotTimeAxis(spanMs: 121_000).unit == .minutes)
        #expect(PlotTimeAxis(spanMs: 7_200_000).unit == .minutes)
        #expect(PlotTimeAxis(spanMs: 9 * 3_600_000).unit == .hours)
        #expect(PlotTimeAxis(spanMs: 0).unit == .seconds)
    }

    @Test func ticksSitAtRoundValues() {
        #expect(PlotTimeAxis(spanMs: 45_000).ticks == [0, 10, 20, 30, 40])
        #expect(PlotTimeAxis(spanMs: 600_000).ticks == [0, 2, 4, 6, 8, 10])
        // Not 0.8 or 1.6 minutes: whole ones.
        #expect(PlotTimeAxis(spanMs: 7 * 60_000).ticks == [0, 1, 2, 3, 4, 5, 6, 7])
        #expect(PlotTimeAxis(spanMs: 100 * 60_000).ticks == [0, 15, 30, 45, 60, 75, 90])
        #expect(PlotTimeAxis(spanMs: 2 * 3_600_000 + 1).ticks == [0, 0.5, 1, 1.5, 2])
        #expect(PlotTimeAxis(spanMs: 9 * 3_600_000).ticks == [0, 2, 4, 6, 8])
        #expect(PlotTimeAxis(spanMs: 3_000).ticks == [0, 0.5, 1, 1.5, 2, 2.5, 3])
        // A measurement of no length (the plot makes it 1 ms): the start alone.
        #expect(PlotTimeAxis(spanMs: 1).ticks == [0])
        for span: Int64 in [999, 61_000, 5_400_000, 86_400_000, 30 * 86_400_000] {
            let axis = PlotTimeAxis(spanMs: span)
            #expect(axis.ticks.count >= 2 && Double(axis.ticks.count - 1) <= PlotTimeAxis.maximumTicks, "\(span): \(axis.ticks)")
        }
        #expect(PlotTimeAxis(spanMs: 45_000).title(startClock: "08:00") == "seconds since the start (08:00 UTC)")
    }
}

@Suite struct PlotTests {
    static let base: Int64 = 1_700_000_000_000

    /// 60 s heading east at 5 m/s, then 60 s at 10 m/s; accelerometer at 10 Hz.
    static func twoSpeeds(in store: Store) throws -> Int64 {
        var engine = Recording()
        let id = try store.begin(try engine.apply(.start(.bicycle), at: base), sources: "test")
        var longitude = 13.73
        for second in 0..<120 {
            let t = base + Int64(second) * 1_000
            let speed = second < 60 ? 5.0 : 10.0
            longitude += speed / (111_320 * cos(51.05 * .pi / 180))
            engine.ingest(.fix(Fix(timestamp: t, latitude: 51.05, longitude: longitude, altitude: 100, horizontalAccuracy: 4, speed: speed)))
            for tick in 0..<10 {
                engine.ingest(.motion(.accelerometer, MotionSample(timestamp: t + Int64(tick) * 100, x: 0, y: 0, z: 9.81)))
            }
            try store.commit(engine.takeFlush(), to: id)
        }
        try store.commit(try engine.apply(.stop, at: base + 120_000), to: id)
        return id
    }

    static func plot(_ id: Int64, _ store: Store, _ directory: String, zones: [PrivacyZone] = []) throws -> SVGElements {
        let path = directory + "/plot-\(zones.count).svg"
        try PlotExporter().export(id, from: store, options: ExportOptions(dataDirectory: directory, privacyZones: zones), to: .file(path))
        return try SVGElements(try #require(FileManager.default.contents(atPath: path)))
    }

    @Test func theTrackIsColouredBySpeedAndSitsInTheMap() throws {
        let directory = try ExportFixtures.temporaryDirectory()
        let store = try Store(directory: directory.path)
        let id = try Self.twoSpeeds(in: store)
        let svg = try Self.plot(id, store, directory.path)
        // 18 km/h and 36 km/h on a scale to 40 km/h: colour 3 of 0…6, then colour 6.
        #expect(svg.lines.map(\.colour) == ["s3", "s6"])
        // The second line begins where the first ends, so the track is unbroken.
        #expect(svg.lines[0].points.last! == svg.lines[1].points.first!)
        // Fixes 5 to 10 m apart, on a map 872 px wide for about 900 m: none is closer than 1.5 px.
        #expect(svg.lines.map(\.points.count).reduce(0, +) == 120 + 1)
        let map = PlotExporter.map
        for point in svg.lines.flatMap(\.points) {
            #expect((map.x...(map.x + map.width)).contains(point.x) && (map.y...(map.y + map.height)).contains(point.y))
        }
        // Heading east: x grows, y stays.
        let xs = svg.lines.flatMap(\.points).map(\.x)
        #expect(xs == xs.sorted())
        #expect(Set(svg.lines.flatMap(\.points).map(\.y)).count == 1)
        // Start and end marks where the track begins and ends.
        let start = try #require(svg.marks.first { $0.name == "circle" })
        #expect(start.x == svg.lines[0].points[0].x && start.y == svg.lines[0].points[0].y)
        let end = try #require(svg.marks.first { $0.name == "rect" })
        #expect(end.x == svg.lines[1].points.last!.x && end.y == svg.lines[1].points.last!.y)
        for label in ["speed (km/h)", "altitude (m, GNSS)", "acceleration |a| (m/s²)", "start", "end", "40"] {
            #expect(svg.texts.contains(label), "\(label) in \(svg.texts)")
        }
        // Two minutes: an axis in seconds, a tick every 15.
        #expect(svg.texts.contains { $0.hasPrefix("seconds since the start (") })
        #expect(svg.texts.contains("105"))
        #expect(svg.texts.contains { $0.hasSuffix(" m") || $0.hasSuffix(" km") }, "a scale bar")
        #expect(svg.polygons >= 1, "the acceleration band")
    }

    @Test func privacyZonesLeaveTheirFixesOffTheMap() throws {
        let directory = try ExportFixtures.temporaryDirectory()
        let store = try Store(directory: directory.path)
        let id = try PrivacyZoneExportTests.ride(in: store)
        let all = try Self.plot(id, store, directory.path)
        #expect(all.lines.count == 1 && all.lines[0].points.count == 60)
        let hidden = try Self.plot(id, store, directory.path, zones: PrivacyZoneExportTests.zones)
        // Fixes 0…2 and 21…29 are hidden: two lines, 18 and 30 points, not bridged across the zone.
        #expect(hidden.lines.map(\.points.count) == [18, 30])
    }

    @Test func theBundledRideShowsItsPauseAndItsChangeOfModality() throws {
        let (store, directory) = try ExportFixtures.replayed("bicycle.trace")
        let svg = try Self.plot(1, store, directory.path)
        #expect(svg.width == 960 && svg.height == PlotExporter.height)
        #expect(svg.marks.filter { $0.name == "circle" }.count == 2, "start and one pause (two tracks)")
        #expect(svg.marks.filter { $0.name == "path" }.count == 1, "one change of modality")
        #expect(svg.texts.filter { $0 == "WALKING" }.count == 2, "on the map and above the charts")
        #expect(svg.texts.contains("pause"))
        #expect(svg.texts.contains("minutes since the start (08:00 UTC)"))
        // 540 fixes, fewer points drawn (those within 1.5 px of the previous are left out).
        let points = svg.lines.map(\.points.count).reduce(0, +)
        #expect(points > 100 && points < 540 + svg.lines.count)
    }

    @Test func noLineCrossesAPause() throws {
        // Two tracks with a pause of 3 s between, shorter than the 10 s the charts bridge.
        let directory = try ExportFixtures.temporaryDirectory()
        let store = try Store(directory: directory.path)
        var engine = Recording()
        let id = try store.begin(try engine.apply(.start(.bicycle), at: Self.base), sources: "test")
        var longitude = 13.73
        for second in 0..<60 {
            let t = Self.base + Int64(second) * 1_000
            if second == 30 {
                try store.commit(try engine.apply(.pause, at: t - 2_000), to: id)
                try store.commit(try engine.apply(.resume, at: t + 1_000), to: id)
            }
            guard second != 29, second != 30 else { continue }
            longitude += 5 / (111_320 * cos(51.05 * .pi / 180))
            engine.ingest(.fix(Fix(timestamp: t, latitude: 51.05, longitude: longitude, altitude: 100, horizontalAccuracy: 4, speed: 5)))
            try store.commit(engine.takeFlush(), to: id)
        }
        try store.commit(try engine.apply(.stop, at: Self.base + 60_000), to: id)
        let path = directory.path + "/pause.svg"
        try PlotExporter().export(id, from: store, options: ExportOptions(dataDirectory: directory.path), to: .file(path))
        let text = try String(contentsOfFile: path, encoding: .utf8)
        // The speed chart's line (the first of the charts' lines) is two: it moves to a point twice.
        let line = try #require(text.split(separator: "\n").first { $0.contains("stroke=\"#1f78b4\"") })
        #expect(line.filter { $0 == "M" }.count == 2, "\(line)")
        // The map: a line per track, the pause marked.
        let svg = try SVGElements(Data(text.utf8))
        #expect(svg.lines.count == 2)
        #expect(svg.texts.contains("seconds since the start (22:13 UTC)"))
    }

    @Test func aMeasurementWithoutFixesSaysSo() throws {
        let directory = try ExportFixtures.temporaryDirectory()
        let store = try Store(directory: directory.path)
        var engine = Recording()
        let id = try store.begin(try engine.apply(.start(.car), at: Self.base), sources: "test")
        try store.commit(try engine.apply(.stop, at: Self.base + 10_000), to: id)
        let svg = try Self.plot(id, store, directory.path)
        #expect(svg.lines.isEmpty)
        for text in ["no position recorded", "no speed recorded", "no altitude recorded", "no accelerometer recorded"] {
            #expect(svg.texts.contains(text))
        }
    }
}
