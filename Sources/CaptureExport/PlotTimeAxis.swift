/// The time axis of `capture plot`'s charts: its unit chosen by the ride's length (seconds up to
/// 2 minutes, minutes up to 2 hours, hours beyond) and its ticks at round values of that unit
/// (every 10 s, 2 min, 3 h, never a fraction of a minute on a minutes axis unless the ride is a
/// few seconds long), at most ``maximumTicks`` intervals.
///
/// ```swift
/// PlotTimeAxis(spanMs: 600_000)   // minutes, every 2: 0, 2, 4, 6, 8, 10
/// PlotTimeAxis(spanMs: 45_000)    // seconds, every 10: 0, 10, 20, 30, 40
/// ```
struct PlotTimeAxis: Equatable {
    enum Unit: String {
        case seconds, minutes, hours

        /// Milliseconds per unit.
        var milliseconds: Double {
            switch self {
            case .seconds: 1000
            case .minutes: 60_000
            case .hours: 3_600_000
            }
        }

        /// Round steps in this unit, smallest first: what a clock's face divides.
        var steps: [Double] {
            switch self {
            case .seconds, .minutes: [0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30]
            case .hours: [0.25, 0.5, 1, 2, 3, 6, 12, 24]
            }
        }
    }

    /// Intervals between ticks, at most.
    static let maximumTicks = 8.0

    let unit: Unit
    /// Between ticks, in ``unit``.
    let step: Double
    /// The ride's length in ``unit``.
    let span: Double

    /// The axis of a ride `spanMs` long.
    init(spanMs: Int64) {
        let seconds = Double(max(spanMs, 1)) / 1000
        unit = seconds <= 120 ? .seconds : seconds <= 7200 ? .minutes : .hours
        span = Double(max(spanMs, 1)) / unit.milliseconds
        let span = span
        // Days-long rides pass the hours' steps: 48 h, 96 h… as PlotGeometry rounds.
        step = unit.steps.first { span / $0 <= Self.maximumTicks } ?? PlotGeometry.niceStep(span, parts: Self.maximumTicks)
    }

    /// The ticks from 0 to the end of the ride, in ``unit``.
    var ticks: [Double] {
        var ticks: [Double] = []
        var index = 0.0
        while index * step <= span + 1e-9 {
            // Multiplied, not summed, so 0.1 steps do not drift.
            ticks.append((index * step * 1000).rounded() / 1000)
            index += 1
        }
        return ticks
    }

    /// The axis's title: `minutes since the start (08:00 UTC)`.
    func title(startClock: String) -> String { "\(unit.rawValue) since the start (\(startClock) UTC)" }
}
