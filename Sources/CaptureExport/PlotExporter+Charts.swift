import CaptureCore
import CaptureFormats
import CaptureStorage

/// The charts of `capture plot`: speed, altitude and acceleration over time.
extension PlotExporter.Survey {
    /// Speed, altitude and acceleration over time.
    func charts() -> String {
        let chart = PlotExporter.chart
        var svg = ""
        let source = figures.altitude.map { $0.source == .gnss ? ", GNSS" : ", barometric" } ?? ""
        let series: [(bins: Bins, label: String, band: Bool, fromZero: Bool, empty: String)] = [
            (speed, "speed (km/h)", false, true, "no speed recorded"),
            (altitude, "altitude (m\(source))", false, false, "no altitude recorded"),
            (acceleration, "acceleration |a| (m/s²)", true, true, "no accelerometer recorded"),
        ]
        for (index, item) in series.enumerated() {
            let top = chart.top + Double(index) * chart.spacing
            svg += panel(item.bins, top: top, label: item.label, band: item.band, fromZero: item.fromZero, empty: item.empty)
        }
        // What barometric heights are measured from (the axis's label has room for the source only).
        if let altitude = figures.altitude, altitude.source == .barometric {
            let top = chart.top + chart.spacing
            svg += "<text x=\"\(chart.x + chart.width - 4)\" y=\"\(top + 12)\" text-anchor=\"end\" class=\"muted\" font-size=\"10\">\(altitude.label)</text>\n"
        }
        let bottom = chart.top + 2 * chart.spacing + chart.height
        let title = timeAxis.title(startClock: String(TextFormat.isoTime(start).dropFirst(11).prefix(5)))
        svg += "<text x=\"\(chart.x + chart.width / 2)\" y=\"\(bottom + 40)\" text-anchor=\"middle\" class=\"label\">\(title)</text>\n"
        return svg
    }

    /// Seconds, minutes or hours, by the ride's length.
    var timeAxis: PlotTimeAxis { PlotTimeAxis(spanMs: end - start) }

    /// Whether a chart line from column `from` to column `to` (`from` < `to`) of `bins` would
    /// cross a pause between tracks, so it is not drawn. A pause within one column breaks the
    /// line after that column (it holds the end of one track and the start of the next).
    func crossesTrackGap(_ bins: Bins, from: Int, to: Int) -> Bool {
        trackGaps.contains { gap in
            guard let left = bins.column(of: gap.from), let right = bins.column(of: gap.to) else { return false }
            return from <= left && right <= to && (left < right || from == left)
        }
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
        // Time ticks, at round values of the axis's unit.
        let axis = timeAxis
        for tick in axis.ticks {
            let position = x(of: start + Int64((tick * axis.unit.milliseconds).rounded()))
            svg += "<path class=\"axis\" d=\"M\(Self.coordinate(position)),\(bottom)v5\"/><text x=\(quoted(position)) y=\"\(bottom + 17)\" text-anchor=\"middle\" class=\"muted\">\(PlotGeometry.number(tick))</text>\n"
        }
        svg += "<path class=\"axis\" d=\"M\(chart.x),\(top)V\(bottom)H\(chart.x + chart.width)\"/>\n"
        svg += "<text transform=\"translate(\(chart.x - 50),\(top + chart.height / 2)) rotate(-90)\" text-anchor=\"middle\" class=\"label\">\(label)</text>\n"
        if bins.isEmpty {
            svg += "<text x=\"\(chart.x + chart.width / 2)\" y=\"\(top + chart.height / 2)\" text-anchor=\"middle\" class=\"muted\">\(empty)</text>\n"
        } else {
            let width = PlotExporter.binWidth
            // Bins without a value are bridged up to 10 s (1 Hz fixes leave most bins of a
            // short ride empty); a longer gap breaks the line, and so does a pause between
            // tracks, however short.
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
                var previous: Int?
                for column in 0..<bins.columns {
                    guard bins.count[column] > 0 else {
                        empty += 1
                        if empty > gap { closeBand() }
                        continue
                    }
                    if let previous, crossesTrackGap(bins, from: previous, to: column) { closeBand() }
                    previous = column
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
            var previous: Int?
            for column in 0..<bins.columns {
                guard let mean = bins.mean(column) else {
                    empty += 1
                    if empty > gap { drawing = false }
                    continue
                }
                if let previous, crossesTrackGap(bins, from: previous, to: column) { drawing = false }
                previous = column
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
