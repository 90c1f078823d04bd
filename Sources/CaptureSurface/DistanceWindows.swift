package import CaptureCore

/// A point in WGS 84 degrees.
package struct SurfacePoint: Sendable, Equatable, Codable {
    package var latitude: Double
    package var longitude: Double

    package init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// Cuts a track into windows of equal distance along its fixes: the distance is the sum of
/// geodesic steps between consecutive fixes, a window's ends are placed on the step where the
/// distance crosses a multiple of the window length, their time and position interpolated
/// linearly between the two fixes. The remainder at the track's end (shorter than a window) is
/// no window; it is counted as ``partial``.
///
/// A window that contains, or touches a step to, a fix that `hidden` says is in a privacy zone
/// is left out and counted as ``hidden``, so no position inside a zone leaves the box.
///
/// ```swift
/// var cutter = DistanceWindows(length: 10)
/// for fix in trackFixes { cutter.add(fix, hidden: privacy.hides(fix)) }
/// cutter.endTrack()
/// cutter.windows   // [Span] with start/end time and position, the fixes between
/// ```
package struct DistanceWindows: Sendable {
    /// One window of the track.
    package struct Span: Sendable, Equatable {
        package var start: Int64
        package var end: Int64
        /// The window's start, the fixes inside it, its end.
        package var points: [SurfacePoint]
        /// Metres (the window length).
        package var distance: Double
        /// Mean speed over the window, m/s: its length over its duration.
        package var speed: Double { end > start ? distance / (Double(end - start) / 1000) : 0 }
    }

    /// Metres.
    package let length: Double
    /// The complete windows, in time order, of every track so far.
    package private(set) var windows: [Span] = []
    /// Windows left out because a privacy zone touches them.
    package private(set) var hidden = 0
    /// Track ends shorter than a window.
    package private(set) var partial = 0

    private var previous: (time: Int64, point: SurfacePoint, hidden: Bool)?
    private var current: (start: Int64, points: [SurfacePoint], covered: Double, hidden: Bool)?

    /// Windows `length` metres long.
    package init(length: Double) { self.length = length }

    /// The next fix of the track (in time order); `hidden`: inside a privacy zone.
    package mutating func add(_ fix: Fix, hidden isHidden: Bool) {
        let point = SurfacePoint(latitude: fix.latitude, longitude: fix.longitude)
        guard let last = previous, fix.timestamp > last.time else {
            if previous == nil {
                previous = (fix.timestamp, point, isHidden)
                current = (fix.timestamp, [point], 0, isHidden)
            }
            return
        }
        previous = (fix.timestamp, point, isHidden)
        let step = Geodesy.distance(
            from: (last.point.latitude, last.point.longitude), to: (point.latitude, point.longitude))
        let touchesZone = isHidden || last.hidden
        guard var window = current else { return }
        if touchesZone { window.hidden = true }
        var done = 0.0  // of this step
        while step > 0, window.covered + (step - done) >= length {
            done += length - window.covered
            let f = done / step
            let time = last.time + Int64((Double(fix.timestamp - last.time) * f).rounded())
            let end = SurfacePoint(
                latitude: last.point.latitude + (point.latitude - last.point.latitude) * f,
                longitude: last.point.longitude + (point.longitude - last.point.longitude) * f)
            window.points.append(end)
            if window.hidden {
                hidden += 1
            } else {
                windows.append(Span(start: window.start, end: time, points: window.points, distance: length))
            }
            window = (time, [end], 0, touchesZone)
        }
        window.covered += step - done
        window.points.append(point)
        current = window
    }

    /// Ends the track: its remainder is counted as ``partial``; the next fix starts a new track.
    package mutating func endTrack() {
        if let window = current, window.covered > 0 { partial += 1 }
        current = nil
        previous = nil
    }
}
