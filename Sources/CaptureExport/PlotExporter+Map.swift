import CaptureCore
import CaptureFormats
import CaptureStorage

/// The map of `capture plot`: the track, its marks and the legend.
extension PlotExporter.Survey {
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

    /// Start, end, pauses, changes of modality and the rider's markers on the map.
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
        for marker in markerPoints {
            let p = at(marker.point)
            svg += """
                <g transform="translate(\(p.x),\(p.y))"><path d="M0,0V-16H10L7,-12L10,-8H1" fill="#fdae61" stroke="#444" stroke-width="1.2"/>\
                <text x="12" y="-10" class="label">\(marker.number)</text></g>

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

    /// A coordinate in double quotes, as an attribute's value.
    func quoted(_ value: Double) -> String { "\"\(Self.coordinate(value))\"" }
}
