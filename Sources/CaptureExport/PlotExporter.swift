import CaptureCore
import CaptureFormats
public import CaptureStorage
import Foundation

/// `capture plot`: one SVG picture of a measurement. On top, the track on a local projection,
/// coloured by speed, with its start and end, pauses and changes of modality marked, a scale bar
/// and the speed legend; beneath it speed, altitude and acceleration magnitude over time, with
/// labelled axes and units, pauses shaded and modality changes drawn as dashed lines.
///
/// The store is streamed: fixes are read twice (extent and time series, then the track), motion
/// samples once, and every time series is gathered into one bin per two pixels, so a day-long
/// ride takes as little memory as a short one. Track points closer than 1.5 px to the previous
/// drawn point are left out of the picture. Privacy zones and `--clean` apply as in every export.
public struct PlotExporter: MeasurementExporter {
    public let name = "svg"
    public let summary = """
        the picture `capture plot` draws (see `capture plot --help`).
        """
    /// Colours the track by spans of time (the road surface) instead of speed.
    public var colouring: PlotColouring?

    /// The plot exporter; `colouring` replaces the speed colours of the track.
    public init(colouring: PlotColouring? = nil) { self.colouring = colouring }

    // Layout, in SVG user units (pixels at 100 %).
    static let width = 960.0
    static let map = (x: 20.0, y: 50.0, width: 920.0, height: 460.0, padding: 24.0)
    static let chart = (x: 80.0, width: 860.0, height: 120.0, top: 560.0, spacing: 175.0)
    static let height = chart.top + 2 * chart.spacing + chart.height + 50
    /// Pixels per time bin of the charts.
    static let binWidth = 2.0

    public func export(
        _ id: Int64, from store: Store, options: ExportOptions, to destination: ExportDestination
    ) throws(ExportError) {
        let record = try finishedRecord(id, in: store)
        var plot = try exporting { try Survey(record: record, store: store, options: options) }
        plot.colouring = colouring
        try OutputSink.writing(to: destination) { sink in
            try sink.write(plot.header())
            try plot.drawTrack(store: store, options: options, to: sink)
            try sink.write(plot.markers() + plot.legend() + plot.charts() + "</svg>\n")
        }
    }
}

extension PlotExporter {
    /// What the first pass over the store finds: the extent, the time series, the marks.
    struct Survey {
        typealias Bins = PlotGeometry.Bins
        let record: MeasurementRecord
        let privacy: PrivacyFilter
        let start: Int64
        let end: Int64
        var projection: PlotGeometry.Projection?
        var extent = PlotGeometry.Extent()
        var speed: Bins
        var altitude: Bins
        var acceleration: Bins
        /// km/h at the top of the speed scale.
        var topSpeed = 0.0
        var distance = 0.0
        var moving: Int64 = 0
        var fixCount = 0
        /// Map positions (metres) of the marks.
        var first: (x: Double, y: Double)?
        var last: (x: Double, y: Double)?
        var pausePoints: [(x: Double, y: Double)] = []
        var changePoints: [(point: (x: Double, y: Double), modality: String)] = []
        /// Time spans of pauses and moments of modality changes.
        var pauses: [(from: Int64, to: Int64)] = []
        var changes: [(time: Int64, modality: String)] = []
        var colouring: PlotColouring?

        init(record: MeasurementRecord, store: Store, options: ExportOptions) throws {
            self.record = record
            privacy = try options.privacy(of: record.id, in: store)
            start = record.startTime
            let finish = try record.endTime ?? store.lastTimestamp(of: record.id) ?? start
            end = max(finish, start + 1)
            let columns = Int(PlotExporter.chart.width / PlotExporter.binWidth)
            speed = Bins(start: start, end: end, columns: columns)
            altitude = Bins(start: start, end: end, columns: columns)
            acceleration = Bins(start: start, end: end, columns: columns)

            // Pauses (pause to resume, or to the end) and changes of modality.
            var modality = record.modality
            var pausedAt: Int64?
            for event in try store.events(of: record.id) {
                switch event.type {
                case .lifecyclePause: pausedAt = event.timestamp
                case .lifecycleResume, .lifecycleStop:
                    if let from = pausedAt { pauses.append((from, event.timestamp)) }
                    pausedAt = nil
                case .modalityTypeChange:
                    if let value = event.value, value != modality {
                        changes.append((event.timestamp, value))
                        modality = value
                    }
                default: break
                }
            }
            if let from = pausedAt { pauses.append((from, end)) }

            // Fixes: extent, speed and altitude, distance, where the marks go.
            var pendingChanges = changes[...]
            let tracks = try store.tracks(of: record.id)
            for (index, track) in tracks.enumerated() {
                var previous: Fix?
                var previousPoint: (x: Double, y: Double)?
                try store.forEachFix(of: record.id, track: track.number) { fix in
                    guard options.keeps(fix, privacy) else { return }
                    if projection == nil { projection = .init(latitude: fix.latitude, longitude: fix.longitude) }
                    let point = projection!.metres(latitude: fix.latitude, longitude: fix.longitude)
                    extent.include(point)
                    if first == nil { first = point }
                    let metresPerSecond = Self.speed(of: fix, after: previous)
                    if let metresPerSecond {
                        speed.add(metresPerSecond * 3.6, at: fix.timestamp)
                        topSpeed = max(topSpeed, metresPerSecond * 3.6)
                    }
                    if let height = fix.altitude { altitude.add(height, at: fix.timestamp) }
                    if let previous {
                        distance += Geodesy.distance(
                            from: (previous.latitude, previous.longitude), to: (fix.latitude, fix.longitude))
                    }
                    while let change = pendingChanges.first, change.time <= fix.timestamp {
                        changePoints.append((point, change.modality))
                        pendingChanges.removeFirst()
                    }
                    previous = fix
                    previousPoint = point
                    fixCount += 1
                }
                if let previousPoint {
                    last = previousPoint
                    if index < tracks.count - 1 { pausePoints.append(previousPoint) }
                }
                moving += (track.endTime ?? end) - track.startTime
            }
            // The colour scale ends at a round speed: 0 to 30 km/h, say, for a top speed of 27.
            let step = PlotGeometry.niceStep(topSpeed, parts: 5)
            topSpeed = topSpeed > 0 ? (topSpeed / step).rounded(.up) * step : 10

            // Acceleration magnitude, one batch at a time.
            var failure: (any Error)?
            try store.forEachBatch(of: record.id, sensor: .accelerometer) { batch in
                guard failure == nil else { return }
                do {
                    for sample in try Store.samples(of: batch) where !privacy.hides(time: sample.timestamp) {
                        let magnitude = (sample.x * sample.x + sample.y * sample.y + sample.z * sample.z).squareRoot()
                        acceleration.add(magnitude, at: sample.timestamp)
                    }
                } catch {
                    failure = error
                }
            }
            if let failure { throw failure }
        }

        /// The receiver's speed, else the distance from the previous fix of the track over the time
        /// between them; m/s.
        static func speed(of fix: Fix, after previous: Fix?) -> Double? {
            if let speed = fix.speed, speed.isFinite { return speed }
            guard let previous, fix.timestamp > previous.timestamp else { return nil }
            let metres = Geodesy.distance(
                from: (previous.latitude, previous.longitude), to: (fix.latitude, fix.longitude))
            return metres / (Double(fix.timestamp - previous.timestamp) / 1000)
        }

        var fit: PlotGeometry.Fit {
            let map = PlotExporter.map
            return PlotGeometry.Fit(
                extent, x: map.x + map.padding, y: map.y + map.padding, width: map.width - 2 * map.padding,
                height: map.height - 2 * map.padding - 30)
        }

        // MARK: - SVG

        func header() -> String {
            let minutes = Double(moving) / 60_000
            let title = [
                "measurement \(record.id)", TextFormat.xmlEscaped(record.modality),
                TextFormat.isoTime(record.startTime).prefix(16).replacingOccurrences(of: "T", with: " ") + " UTC",
                "\(PlotGeometry.number((distance / 10).rounded() / 100)) km in \(Self.duration(minutes))",
            ].joined(separator: " · ")
            let map = PlotExporter.map
            var svg = """
                <?xml version="1.0" encoding="UTF-8"?>
                <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(PlotExporter.width))" height="\(Int(PlotExporter.height))" \
                viewBox="0 0 \(Int(PlotExporter.width)) \(Int(PlotExporter.height))" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="12">
                <title>\(title)</title>
                <style>
                polyline { fill: none; stroke-width: 3; stroke-linejoin: round; stroke-linecap: round }

                """
            let colours = colouring.map { $0.colours + [PlotColouring.unrated] } ?? PlotGeometry.speedColours
            for (index, colour) in colours.enumerated() { svg += ".s\(index) { stroke: \(colour) }\n" }
            svg += """
                .axis { stroke: #444; stroke-width: 1; fill: none } .grid { stroke: #ddd; stroke-width: 1; fill: none }
                .change { stroke: #7b3294; stroke-width: 1.5; stroke-dasharray: 5 4; fill: none } .pause { fill: #e6e6e6 }
                .label { fill: #333 } .muted { fill: #777 }
                </style>
                <rect width="100%" height="100%" fill="#ffffff"/>
                <text x="20" y="32" font-size="17" class="label">\(title)</text>
                <rect x="\(map.x)" y="\(map.y)" width="\(map.width)" height="\(map.height)" fill="#f6f6f3" stroke="#cccccc"/>

                """
            if fixCount == 0 {
                svg += "<text x=\"\(map.x + map.width / 2)\" y=\"\(map.y + map.height / 2)\" text-anchor=\"middle\" class=\"muted\">no position recorded</text>\n"
            }
            return svg
        }

        static func duration(_ minutes: Double) -> String {
            minutes < 60 ? "\(Int(minutes.rounded())) min" : "\(Int(minutes / 60)) h \(Int(minutes.truncatingRemainder(dividingBy: 60).rounded())) min"
        }

        /// The second pass: the track as polylines, one per run of fixes of the same speed class.
        func drawTrack(store: Store, options: ExportOptions, to sink: OutputSink) throws {
            guard let projection else { return }
            let fit = self.fit
            var buffer = ""
            var failure: (any Error)?
            func flush() {
                guard failure == nil, !buffer.isEmpty else { return }
                do { try sink.write(buffer) } catch { failure = error }
                buffer = ""
            }
            for track in try store.tracks(of: record.id) {
                var previous: Fix?
                var drawn: (x: Double, y: Double)?
                var colour = -1
                var open = false
                try store.forEachFix(of: record.id, track: track.number) { fix in
                    guard options.keeps(fix, privacy) else {
                        // A hidden stretch is not bridged.
                        if open { buffer += "\"/>\n" }
                        open = false
                        previous = nil
                        drawn = nil
                        return
                    }
                    let pixel = fit.pixel(projection.metres(latitude: fix.latitude, longitude: fix.longitude))
                    let speed = Self.speed(of: fix, after: previous).map { $0 * 3.6 } ?? 0
                    let next = colouring?.index(at: fix.timestamp) ?? PlotGeometry.speedClass(speed, top: topSpeed)
                    previous = fix
                    if let last = drawn, next == colour,
                        (pixel.x - last.x) * (pixel.x - last.x) + (pixel.y - last.y) * (pixel.y - last.y) < 2.25
                    {
                        return
                    }
                    let coordinates = "\(Self.coordinate(pixel.x)),\(Self.coordinate(pixel.y))"
                    if !open || next != colour {
                        // A new colour starts where the previous line ended, so the line is unbroken.
                        if open { buffer += " \(coordinates)\"/>\n" }
                        buffer += "<polyline class=\"s\(next)\" points=\"" + coordinates
                        open = true
                        colour = next
                    } else {
                        buffer += " " + coordinates
                    }
                    drawn = pixel
                    if buffer.utf8.count > 65_536 { flush() }
                }
                if open { buffer += "\"/>\n" }
            }
            flush()
            if let failure { throw failure }
        }

        static func coordinate(_ value: Double) -> String { TextFormat.decimal(value, 1) }

        /// Start, end, pauses and changes of modality on the map.
        func markers() -> String {
            guard projection != nil else { return "" }
            let fit = self.fit
            var svg = ""
            func at(_ point: (x: Double, y: Double)) -> (x: String, y: String) {
                let pixel = fit.pixel(point)
                return (Self.coordinate(pixel.x), Self.coordinate(pixel.y))
            }
            for point in pausePoints {
                let p = at(point)
                svg += """
                    <g transform="translate(\(p.x),\(p.y))"><circle r="8" fill="#ffffff" stroke="#444" stroke-width="1.5"/>\
                    <path d="M-2.5,-4V4M2.5,-4V4" stroke="#444" stroke-width="2"/></g>

                    """
            }
            for change in changePoints {
                let p = at(change.point)
                svg += """
                    <g transform="translate(\(p.x),\(p.y))"><path d="M0,-8L8,0L0,8L-8,0Z" fill="#7b3294" stroke="#ffffff"/>\
                    <text x="11" y="4" class="label" font-weight="bold">\(TextFormat.xmlEscaped(change.modality))</text></g>

                    """
            }
            if let first {
                let p = at(first)
                svg += "<g transform=\"translate(\(p.x),\(p.y))\"><circle r=\"7\" fill=\"#1a9850\" stroke=\"#ffffff\" stroke-width=\"2\"/><text x=\"10\" y=\"-8\" class=\"label\">start</text></g>\n"
            }
            if let last {
                let p = at(last)
                svg += "<g transform=\"translate(\(p.x),\(p.y))\"><rect x=\"-6\" y=\"-6\" width=\"12\" height=\"12\" fill=\"#222\" stroke=\"#ffffff\" stroke-width=\"2\"/><text x=\"10\" y=\"-8\" class=\"label\">end</text></g>\n"
            }
            return svg
        }

        /// The scale bar (bottom left) and the speed colours (bottom right) inside the map.
        func legend() -> String {
            guard projection != nil else { return "" }
            let map = PlotExporter.map
            let baseline = map.y + map.height - 16
            let metres = PlotGeometry.scaleBarLength(atMost: 200 / fit.pixelsPerMetre)
            let length = metres * fit.pixelsPerMetre
            let x = map.x + 16
            var svg = """
                <path d="M\(x),\(baseline - 6)V\(baseline)H\(Self.coordinate(x + length))V\(baseline - 6)" fill="none" stroke="#222" stroke-width="2"/>
                <text x="\(Self.coordinate(x + length / 2))" y="\(baseline - 10)" text-anchor="middle" class="label">\(PlotGeometry.distanceLabel(metres))</text>

                """
            if let colouring { return svg + categories(colouring, baseline: baseline) }
            let colours = PlotGeometry.speedColours
            let box = 28.0
            let left = map.x + map.width - 16 - box * Double(colours.count)
            svg += "<text x=\"\(left)\" y=\"\(baseline - 14)\" class=\"label\">speed (km/h)</text>\n"
            for (index, colour) in colours.enumerated() {
                svg += "<rect x=\(quoted(left + box * Double(index))) y=\(quoted(baseline - 8)) width=\"\(box)\" height=\"8\" fill=\"\(colour)\"/>\n"
            }
            for index in [0, colours.count] {
                let value = topSpeed * Double(index) / Double(colours.count)
                svg += "<text x=\(quoted(left + box * Double(index))) y=\(quoted(baseline + 11)) text-anchor=\"middle\" class=\"muted\" font-size=\"10\">\(PlotGeometry.number(value.rounded()))</text>\n"
            }
            return svg
        }

        /// The legend of a ``PlotColouring``: a swatch and a label per colour, and the unrated grey.
        func categories(_ colouring: PlotColouring, baseline: Double) -> String {
            let map = PlotExporter.map
            let items = Array(zip(colouring.labels, colouring.colours)) + [("not rated", PlotColouring.unrated)]
            let box = 62.0
            let left = map.x + map.width - 16 - box * Double(items.count)
            var svg = "<text x=\"\(left)\" y=\"\(baseline - 14)\" class=\"label\">\(TextFormat.xmlEscaped(colouring.title))</text>\n"
            for (index, item) in items.enumerated() {
                let x = left + box * Double(index)
                svg += "<rect x=\(quoted(x)) y=\(quoted(baseline - 8)) width=\"\(box - 4)\" height=\"8\" fill=\"\(item.1)\"/>"
                svg += "<text x=\(quoted(x)) y=\(quoted(baseline + 11)) class=\"muted\" font-size=\"10\">\(TextFormat.xmlEscaped(item.0))</text>\n"
            }
            return svg
        }

        private func quoted(_ value: Double) -> String { "\"\(Self.coordinate(value))\"" }

        /// Speed, altitude and acceleration over time.
        func charts() -> String {
            let chart = PlotExporter.chart
            var svg = ""
            let series: [(bins: Bins, label: String, band: Bool, fromZero: Bool, empty: String)] = [
                (speed, "speed (km/h)", false, true, "no speed recorded"),
                (altitude, "altitude (m)", false, false, "no altitude recorded"),
                (acceleration, "acceleration |a| (m/s²)", true, true, "no accelerometer recorded"),
            ]
            for (index, item) in series.enumerated() {
                let top = chart.top + Double(index) * chart.spacing
                svg += panel(item.bins, top: top, label: item.label, band: item.band, fromZero: item.fromZero, empty: item.empty)
            }
            let bottom = chart.top + 2 * chart.spacing + chart.height
            svg += "<text x=\"\(chart.x + chart.width / 2)\" y=\"\(bottom + 40)\" text-anchor=\"middle\" class=\"label\">minutes since the start (\(TextFormat.isoTime(start).dropFirst(11).prefix(5)) UTC)</text>\n"
            return svg
        }

        private func x(of time: Int64) -> Double {
            let chart = PlotExporter.chart
            return chart.x + Double(time - start) / Double(end - start) * chart.width
        }

        private func panel(_ bins: Bins, top: Double, label: String, band: Bool, fromZero: Bool, empty: String) -> String {
            let chart = PlotExporter.chart
            let bottom = top + chart.height
            var svg = "<g>\n"
            for pause in pauses {
                let from = max(x(of: pause.from), chart.x)
                let to = min(x(of: pause.to), chart.x + chart.width)
                svg += "<rect class=\"pause\" x=\(quoted(from)) y=\"\(top)\" width=\(quoted(max(to - from, 1))) height=\"\(chart.height)\"/>\n"
                if top == chart.top {
                    svg += "<text x=\(quoted(from + 3)) y=\"\(top + 12)\" class=\"muted\" font-size=\"10\">pause</text>\n"
                }
            }
            // Vertical range and ticks.
            let range = bins.range
            var low = range.map { fromZero ? min(0, $0.low) : $0.low } ?? 0
            var high = range?.high ?? 1
            if high - low < 1e-9 {
                low -= 1
                high += 1
            }
            let step = PlotGeometry.niceStep(high - low, parts: 4)
            low = (low / step).rounded(.down) * step
            high = (high / step).rounded(.up) * step
            func y(_ value: Double) -> Double { bottom - (value - low) / (high - low) * chart.height }
            var tick = low
            while tick <= high + step / 1000 {
                let position = Self.coordinate(y(tick))
                svg += "<path class=\"grid\" d=\"M\(chart.x),\(position)H\(chart.x + chart.width)\"/>"
                svg += "<text x=\"\(chart.x - 6)\" y=\"\(Self.coordinate(y(tick) + 4))\" text-anchor=\"end\" class=\"muted\">\(PlotGeometry.number(tick))</text>\n"
                tick += step
            }
            // Time ticks, every round number of minutes.
            let minutes = Double(end - start) / 60_000
            let minuteStep = PlotGeometry.niceStep(minutes, parts: 8)
            var minute = 0.0
            while minute <= minutes + 1e-9 {
                let position = x(of: start + Int64(minute * 60_000))
                svg += "<path class=\"axis\" d=\"M\(Self.coordinate(position)),\(bottom)v5\"/><text x=\(quoted(position)) y=\"\(bottom + 17)\" text-anchor=\"middle\" class=\"muted\">\(PlotGeometry.number(minute))</text>\n"
                minute += minuteStep
            }
            svg += "<path class=\"axis\" d=\"M\(chart.x),\(top)V\(bottom)H\(chart.x + chart.width)\"/>\n"
            svg += "<text transform=\"translate(\(chart.x - 50),\(top + chart.height / 2)) rotate(-90)\" text-anchor=\"middle\" class=\"label\">\(label)</text>\n"
            if bins.isEmpty {
                svg += "<text x=\"\(chart.x + chart.width / 2)\" y=\"\(top + chart.height / 2)\" text-anchor=\"middle\" class=\"muted\">\(empty)</text>\n"
            } else {
                let width = PlotExporter.binWidth
                // Bins without a value are bridged up to 10 s (1 Hz fixes leave most bins of a
                // short ride empty); a longer gap, a pause say, breaks the line.
                let gap = max(1, Int(10_000 / (Double(end - start) / Double(bins.columns))))
                if band {
                    // The spread of each bin (lowest to highest), then its mean.
                    var upper: [String] = []
                    var lower: [String] = []
                    func closeBand() {
                        if !upper.isEmpty {
                            svg += "<polygon fill=\"#b8c7dc\" points=\"\((upper + lower.reversed()).joined(separator: " "))\"/>\n"
                        }
                        upper = []
                        lower = []
                    }
                    var empty = 0
                    for column in 0..<bins.columns {
                        guard bins.count[column] > 0 else {
                            empty += 1
                            if empty > gap { closeBand() }
                            continue
                        }
                        empty = 0
                        let left = chart.x + Double(column) * width
                        for position in [left, left + width] {
                            upper.append("\(Self.coordinate(position)),\(Self.coordinate(y(bins.high[column])))")
                            lower.append("\(Self.coordinate(position)),\(Self.coordinate(y(bins.low[column])))")
                        }
                    }
                    closeBand()
                }
                var path = ""
                var drawing = false
                var empty = 0
                for column in 0..<bins.columns {
                    guard let mean = bins.mean(column) else {
                        empty += 1
                        if empty > gap { drawing = false }
                        continue
                    }
                    empty = 0
                    let position = chart.x + (Double(column) + 0.5) * width
                    path += (drawing ? "L" : "M") + "\(Self.coordinate(position)),\(Self.coordinate(y(mean)))"
                    drawing = true
                }
                svg += "<path d=\"\(path)\" fill=\"none\" stroke=\"\(band ? "#2b4c7e" : "#1f78b4")\" stroke-width=\"1.5\" stroke-linejoin=\"round\"/>\n"
            }
            for change in changes {
                let position = Self.coordinate(x(of: change.time))
                svg += "<path class=\"change\" d=\"M\(position),\(top)V\(bottom)\"/>"
                if top == chart.top {
                    svg += "<text x=\"\(position)\" y=\"\(top - 4)\" text-anchor=\"middle\" fill=\"#7b3294\" font-size=\"11\">\(TextFormat.xmlEscaped(change.modality))</text>"
                }
                svg += "\n"
            }
            return svg + "</g>\n"
        }
    }
}
