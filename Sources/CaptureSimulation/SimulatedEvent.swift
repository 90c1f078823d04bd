/// One thing that happens in a box's simulated life (``LifePlan`` draws them from a seed). Each
/// is whole by itself: dropping any of them (``Life/shrink(_:budget:)``) leaves a life that
/// still runs, so a failing life shrinks to the events that matter.
///
/// Times are true time; the box's host clock is off by the skew of its last boot.
package enum SimulatedEvent: Sendable, Equatable {
    /// What the collector does from now on.
    package enum Collector: String, Sendable, Equatable, CaseIterable {
        /// Answers as the protocol says.
        case up
        /// Unreachable: every request fails without an answer.
        case down
        /// Answers every request with 500.
        case failing
    }

    /// The power comes back after `offFor` ms (the box was cut or parked off before): the unit's
    /// `capture start --foreground --continue-interrupted` with the host clock `skew` ms off true
    /// time (no RTC, no NTP yet). A boot while the box runs is a power cut first.
    case boot(offFor: Int64, skew: Int64)
    /// The bike moves for `seconds` at `speed` m/s towards `heading` degrees (a push below
    /// 2 m/s), a fix every second if the receiver has one.
    case move(seconds: Int, speed: Double, heading: Double)
    /// The bike stands for `seconds` (a red light, or parked with the box on).
    case stand(seconds: Int)
    /// The receiver has no fix for the next `seconds` of the events that follow (a cold start
    /// after a boot, a tunnel); time does not pass by itself.
    case noFix(seconds: Int)
    /// The power goes: the recorder performs `actions` more of the actions it queued, then
    /// everything not durable is lost (memory, what was not staged).
    case cut(actions: Int)
    /// The collector changes.
    case collector(Collector)

    /// The event as one line of the event log (``init(line:)`` reads it back).
    package var line: String {
        switch self {
        case .boot(let off, let skew): "boot off=\(off) skew=\(skew)"
        case .move(let seconds, let speed, let heading): "move s=\(seconds) speed=\(Self.decimal(speed)) heading=\(Self.decimal(heading))"
        case .stand(let seconds): "stand s=\(seconds)"
        case .noFix(let seconds): "nofix s=\(seconds)"
        case .cut(let actions): "cut actions=\(actions)"
        case .collector(let mode): "collector \(mode.rawValue)"
        }
    }

    /// Reads a line written by ``line``; nil if it is not one.
    package init?(line: String) {
        let words = line.split(separator: " ").map(String.init)
        guard let kind = words.first else { return nil }
        var fields: [String: String] = [:]
        for word in words.dropFirst() {
            let parts = word.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        func int(_ key: String) -> Int64? { fields[key].flatMap { Int64($0) } }
        func double(_ key: String) -> Double? { fields[key].flatMap { Double($0) } }
        switch kind {
        case "boot":
            guard let off = int("off"), let skew = int("skew") else { return nil }
            self = .boot(offFor: off, skew: skew)
        case "move":
            guard let seconds = int("s"), let speed = double("speed"), let heading = double("heading") else { return nil }
            self = .move(seconds: Int(seconds), speed: speed, heading: heading)
        case "stand":
            guard let seconds = int("s") else { return nil }
            self = .stand(seconds: Int(seconds))
        case "nofix":
            guard let seconds = int("s") else { return nil }
            self = .noFix(seconds: Int(seconds))
        case "cut":
            guard let actions = int("actions") else { return nil }
            self = .cut(actions: Int(actions))
        case "collector":
            guard words.count == 2, let mode = Collector(rawValue: words[1]) else { return nil }
            self = .collector(mode)
        default: return nil
        }
    }

    /// Two decimals, the same on every platform.
    static func decimal(_ value: Double) -> String {
        let hundredths = Int64((value * 100).rounded())
        let sign = hundredths < 0 ? "-" : ""
        let magnitude = abs(hundredths)
        let fraction = magnitude % 100
        return "\(sign)\(magnitude / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
