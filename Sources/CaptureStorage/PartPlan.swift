/// Where a finished measurement whose transfer file could pass `collector.payload_limit` is cut
/// into consecutive parts (``Store/cutIntoParts(_:limit:)``). Pure: values in, cut times out.
///
/// Part `k` holds what was taken in `[cuts[k-1], cuts[k])`, the first part everything before
/// `cuts[0]` and the last everything from the last cut on, so every fix, event and sample is in
/// exactly one part. A batch of motion samples that spans a cut is split there; until then its
/// whole body is counted in both parts it reaches into, so the bound stays an upper bound.
///
/// Each part's bound (``TransferSizeBound/bytes(raw:)`` of its items' bytes) is at most the
/// limit, and each holds at least two fixes (the collector refuses fewer, 412). The plan is
/// greedy: each part runs to the latest cut that keeps it within the limit, so the parts are few
/// and all but the last close to the limit.
///
/// ```swift
/// let plan = PartPlan(items: items, candidates: fixTimes, fixTimes: fixTimes, limit: 100 << 20)
/// // plan?.cuts == [] when everything fits; nil when no plan keeps every part within the limit
/// ```
public struct PartPlan: Sendable, Equatable {
    /// One thing of the transfer file: the span of time it covers and an upper bound of its bytes
    /// before compression.
    public struct Item: Sendable, Equatable {
        public var first: Int64
        public var last: Int64
        public var bytes: Int64

        /// An item covering `first...last`.
        public init(first: Int64, last: Int64, bytes: Int64) {
            self.first = first
            self.last = last
            self.bytes = bytes
        }
    }

    /// The cut times, ascending; empty when the measurement fits as it is.
    public let cuts: [Int64]

    /// Plans the cuts.
    ///
    /// - Parameters:
    ///   - items: every fix, event and batch, with its bytes (any order).
    ///   - candidates: the times a cut may be made at (where a new part can begin: a fix inside a
    ///     track, no event at the same time).
    ///   - fixTimes: the times of all fixes (each part needs two).
    ///   - limit: the payload limit in bytes.
    /// - Returns: nil when some stretch between two candidates is over the limit by itself, or
    ///   there are too few fixes to give every part two.
    public init?(items: [Item], candidates: [Int64], fixTimes: [Int64], limit: Int64) {
        let items = items.sorted { $0.first < $1.first }
        let fixes = fixTimes.sorted()
        let candidates = Array(Set(candidates)).sorted()
        func bound(_ raw: Int64) -> Int64 { TransferSizeBound.bytes(raw: raw) }
        guard bound(items.reduce(0) { $0 + $1.bytes }) > limit else {
            cuts = []
            return
        }
        /// Fixes before `time`.
        func fixesBefore(_ time: Int64) -> Int {
            var low = 0
            var high = fixes.count
            while low < high {
                let middle = (low + high) / 2
                if fixes[middle] < time { low = middle + 1 } else { high = middle }
            }
            return low
        }
        var cuts: [Int64] = []
        var next = 0  // the first item not yet counted in the part under way
        var carried: [Item] = []  // items counted in the part under way that may reach past its end
        var raw: Int64 = 0
        var start = Int64.min
        var candidate = 0
        while true {
            let startFixes = start == .min ? 0 : fixesBefore(start)
            // Grow the part over the candidates while it stays within the limit.
            var best: (time: Int64, candidateIndex: Int)?
            var index = candidate
            while index < candidates.count {
                let time = candidates[index]
                while next < items.count, items[next].first < time {
                    raw += items[next].bytes
                    carried.append(items[next])
                    next += 1
                }
                if bound(raw) > limit { break }
                if fixesBefore(time) - startFixes >= 2, fixes.count - fixesBefore(time) >= 2 { best = (time, index) }
                index += 1
            }
            // Everything left fits: this is the last part.
            let rest = raw + items[next...].reduce(0) { $0 + $1.bytes }
            if bound(rest) <= limit { break }
            guard let (cut, cutIndex) = best else { return nil }
            cuts.append(cut)
            // The next part begins with what reaches over the cut; items counted past `cut`
            // while looking further belong to it too.
            carried = carried.filter { $0.last >= cut }
            raw = carried.reduce(0) { $0 + $1.bytes }
            start = cut
            candidate = cutIndex + 1
        }
        self.cuts = cuts
    }
}
