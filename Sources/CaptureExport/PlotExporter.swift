import CaptureCore
import CaptureFormats
package import CaptureStorage
import Foundation

/// `capture plot`: one SVG picture of a measurement. On top, the track on a local projection,
/// coloured by speed, with its start and end, pauses and changes of modality marked, a scale bar
/// and the speed legend; beneath it speed, altitude and acceleration magnitude over time, with
/// labelled axes and units, pauses shaded and modality changes drawn as dashed lines. The title
/// states the ride's ``RideFigures`` (as `capture show` does); the altitude chart draws the
/// altitude those figures chose (barometric, else GNSS) and says which; the time axis counts
/// seconds, minutes or hours by the ride's length (``PlotTimeAxis``); no line is drawn across a
/// pause (between tracks). One concern a file: the survey and the title here, the map in
/// `PlotExporter+Map.swift`, the charts in `PlotExporter+Charts.swift`.
///
/// The store is streamed: fixes are read twice (extent, time series and figures, then the
/// track), motion samples once, pressure samples whole (as `capture show` reads them), and every
/// time series is gathered into one bin per two pixels. Track points closer than 1.5 px to the
/// previous drawn point are left out of the picture. Privacy zones and `--clean` apply as in every export.
package struct PlotExporter: MeasurementExporter {
    package let name = "svg"
    package let summary = """
        the picture `capture plot` draws (see `capture plot --help`).
        """
    /// Colours the track by spans of time (the road surface) instead of speed.
    package var colouring: PlotColouring?

    /// The plot exporter; `colouring` replaces the speed colours of the track.
    package init(colouring: PlotColouring? = nil) { self.colouring = colouring }

    // Layout, in SVG user units (pixels at 100 %).
    static let width = 960.0
    static let map = (x: 20.0, y: 50.0, width: 920.0, height: 460.0, padding: 24.0)
    static let chart = (x: 80.0, width: 860.0, height: 120.0, top: 560.0, spacing: 175.0)
    static let height = chart.top + 2 * chart.spacing + chart.height + 50
    /// Pixels per time bin of the charts.
    static let binWidth = 2.0

    package func export(
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
        /// Distance, duration, moving time and altitude, as `capture show` states them.
        var figures = RideFigures()
        var fixCount = 0
        /// Map positions (metres) of the marks.
        var first: (x: Double, y: Double)?
        var last: (x: Double, y: Double)?
        var pausePoints: [(x: Double, y: Double)] = []
        var changePoints: [(point: (x: Double, y: Double), modality: String)] = []
        /// The rider's markers that have a place, numbered in the ride's order.
        var markerPoints: [(point: (x: Double, y: Double), number: Int)] = []
        /// Time spans of pauses and moments of modality changes.
        var pauses: [(from: Int64, to: Int64)] = []
        /// From the end of a track to the start of the next: no chart line crosses these.
        var trackGaps: [(from: Int64, to: Int64)] = []
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

            // Fixes: extent, speed and altitude, the figures, where the marks go.
            var pendingChanges = changes[...]
            var tally = RideFigures.Tally()
            let tracks = try store.tracks(of: record.id)
            for (index, track) in tracks.enumerated() {
                var previous: Fix?
                var previousPoint: (x: Double, y: Double)?
                try store.forEachFix(of: record.id, track: track.number) { fix in
                    // The figures are those of what the plot may show, --clean or not (their
                    // distance counts clean fixes anyway), as an export's are.
                    if !privacy.hides(fix) { tally.add(fix) }
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
                    while let change = pendingChanges.first, change.time <= fix.timestamp {
                        changePoints.append((point, change.modality))
                        pendingChanges.removeFirst()
                    }
                    previous = fix
                    previousPoint = point
                    fixCount += 1
                }
                tally.endTrack()
                if let previousPoint {
                    last = previousPoint
                    if index < tracks.count - 1 { pausePoints.append(previousPoint) }
                }
                if index < tracks.count - 1 {
                    let next = tracks[index + 1].startTime
                    trackGaps.append((track.endTime ?? next, next))
                }
            }
            for (index, marker) in options.markers(of: record.id, in: store, privacy).enumerated() {
                guard let projection, let latitude = marker.latitude, let longitude = marker.longitude else { continue }
                markerPoints.append((projection.metres(latitude: latitude, longitude: longitude), index + 1))
            }
            // The altitude the figures chose: the barometer's heights over time, else the fixes'.
            let pressures = try store.pressures(of: record.id).filter { !privacy.hides(time: $0.timestamp) }
            figures = tally.figures(
                start: start, end: record.endTime, tracks: tracks, lastSample: end,
                pressures: pressures.map(\.hectopascals), qnh: nil)
            if figures.altitude?.source == .barometric {
                altitude = Bins(start: start, end: end, columns: columns)
                let base = pressures.lazy.compactMap { BarometricAltitude.altitude(pressure: $0.hectopascals) }.first ?? 0
                for sample in pressures {
                    if let height = BarometricAltitude.altitude(pressure: sample.hectopascals) {
                        altitude.add(height - base, at: sample.timestamp)
                    }
                }
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

        /// `measurement 3 · BICYCLE · 2026-06-14 08:00 UTC · 2.34 km in 0:10:00, 0:09:00 moving`.
        var title: String {
            [
                "measurement \(record.id)", TextFormat.xmlEscaped(record.modality),
                TextFormat.isoTime(record.startTime).prefix(16).replacingOccurrences(of: "T", with: " ") + " UTC",
                figures.headline,
            ].joined(separator: " · ")
        }

        func header() -> String {
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
    }
}
