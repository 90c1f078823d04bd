/// What privacy zones hide of one measurement: the fixes inside a zone, and the stretches of time
/// around them, whose motion samples and pressure readings are left out too.
///
/// A stretch runs from the last fix outside every zone before a run of fixes inside one to the
/// first fix outside after it, both ends excluded (the time between two fixes is hidden whole,
/// since where the device was in it is not known). A measurement that begins inside a zone is
/// hidden from its beginning, one that ends inside a zone to its end. Events are not hidden:
/// they hold times, not places, and the collector slices tracks by them.
///
/// ```swift
/// let filter = PrivacyFilter(zones: [home], fixes: fixes)   // fixes in time order
/// let sent = fixes.filter { !filter.hides($0) }
/// filter.hides(time: sample.timestamp)
/// ```
public struct PrivacyFilter: Sendable, Equatable {
    /// A hidden stretch of time, ms, both ends excluded.
    public struct Stretch: Sendable, Equatable {
        /// The last fix outside before it (`Int64.min`: from the beginning).
        public var after: Int64
        /// The first fix outside after it (`Int64.max`: to the end).
        public var before: Int64
    }

    /// The zones.
    public let zones: [PrivacyZone]
    /// The hidden stretches, in time order, not overlapping.
    public private(set) var stretches: [Stretch] = []

    /// Nothing hidden.
    public static let none = PrivacyFilter(zones: [], fixes: [])

    /// The stretches of `fixes` (in time order) inside `zones`.
    public init(zones: [PrivacyZone], fixes: some Sequence<Fix>) {
        self.zones = zones
        guard !zones.isEmpty else { return }
        var lastOutside = Int64.min
        var inside = false
        for fix in fixes {
            if zones.contains(where: { $0.contains(latitude: fix.latitude, longitude: fix.longitude) }) {
                inside = true
            } else {
                if inside { stretches.append(Stretch(after: lastOutside, before: fix.timestamp)) }
                inside = false
                lastOutside = fix.timestamp
            }
        }
        if inside { stretches.append(Stretch(after: lastOutside, before: .max)) }
    }

    /// Whether nothing is hidden.
    public var hidesNothing: Bool { stretches.isEmpty }

    /// Whether a fix is left out: it lies inside a zone.
    public func hides(_ fix: Fix) -> Bool {
        !stretches.isEmpty && zones.contains { $0.contains(latitude: fix.latitude, longitude: fix.longitude) }
    }

    /// Whether a sample at `time` is left out: it lies in a hidden stretch.
    public func hides(time: Int64) -> Bool {
        guard let index = firstStretch(endingAfter: time) else { return false }
        return stretches[index].after < time
    }

    /// Whether any time in `first...last` is hidden (a batch of samples that needs filtering).
    public func overlaps(first: Int64, last: Int64) -> Bool {
        guard var index = firstStretch(endingAfter: first) else { return false }
        while index < stretches.count, stretches[index].after < last {
            // The open interval (after, before) meets [first, last].
            let stretch = stretches[index]
            if max(stretch.after + 1, first) <= min(stretch.before - 1, last) { return true }
            index += 1
        }
        return false
    }

    /// The first stretch with `before > time` (binary search).
    private func firstStretch(endingAfter time: Int64) -> Int? {
        var low = 0
        var high = stretches.count
        while low < high {
            let middle = (low + high) / 2
            if stretches[middle].before > time { high = middle } else { low = middle + 1 }
        }
        return low < stretches.count ? low : nil
    }
}
