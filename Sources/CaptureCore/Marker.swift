/// A moment the rider marked (a short press of the button): when, where the box was (the last
/// fix, when one came within ``positionWithin`` of it), and what marked it. Kept in the ride's
/// `recorder.jsonl`, so that it reaches the collector with the ride, and read back from there by
/// `capture show`, the exports and the plot.
public struct Marker: Sendable, Equatable, Codable {
    /// Unix ms, on the measurement's clock.
    public var time: Int64
    public var latitude: Double?
    public var longitude: Double?
    /// What marked it: `button /dev/input/…`.
    public var source: String

    /// How far from the mark the last fix may lie to give its position, ms.
    public static let positionWithin: Int64 = 5000

    public init(time: Int64, latitude: Double? = nil, longitude: Double? = nil, source: String) {
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.source = source
    }

    /// A mark at `time` placed at `fix`, when the fix lies within ``positionWithin`` of it.
    public init(time: Int64, near fix: Fix?, source: String) {
        let fix = fix.flatMap { abs($0.timestamp - time) <= Self.positionWithin ? $0 : nil }
        self.init(time: time, latitude: fix?.latitude, longitude: fix?.longitude, source: source)
    }
}
