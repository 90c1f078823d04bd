/// A colouring of the plot's track by time spans instead of speed: `capture plot --colour
/// surface` colours each stretch by the class of the road surface there. A fix outside every
/// span (too slow, a remainder, not rated) is drawn in ``unrated``.
///
/// ```swift
/// let colouring = PlotColouring(
///     title: "surface class", labels: ["0 good", "1", "2", "3 bad"], colours: ["#1a9850", "#a6d96a", "#fdae61", "#d7191c"],
///     spans: [(start: 0, end: 2_000, index: 0)])
/// try PlotExporter(colouring: colouring).export(1, from: store, options: options, to: .file("ride.svg"))
/// ```
package struct PlotColouring: Sendable {
    /// The legend's title.
    package var title: String
    /// One label and colour per index.
    package var labels: [String]
    package var colours: [String]
    /// Grey: where no span is.
    package static let unrated = "#b0b0b0"
    private var starts: [Int64] = []
    private var ends: [Int64] = []
    private var indices: [Int] = []

    /// `spans` with `start` ≤ t < `end`, not overlapping, in any order.
    package init(title: String, labels: [String], colours: [String], spans: [(start: Int64, end: Int64, index: Int)]) {
        self.title = title
        self.labels = labels
        self.colours = colours
        for span in spans.sorted(by: { $0.start < $1.start }) {
            starts.append(span.start)
            ends.append(span.end)
            indices.append(span.index)
        }
    }

    /// The colour index at `time`, ``colours``'s count for none.
    func index(at time: Int64) -> Int {
        var low = 0
        var high = starts.count
        while low < high {
            let middle = (low + high) / 2
            if starts[middle] <= time { low = middle + 1 } else { high = middle }
        }
        guard low > 0, time < ends[low - 1] else { return colours.count }
        return min(max(indices[low - 1], 0), colours.count - 1)
    }
}
