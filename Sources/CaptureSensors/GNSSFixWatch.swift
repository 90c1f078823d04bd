import CaptureCore
import CaptureGNSS

/// Where a live GNSS source stands, for `capture status` (raw values are its JSON strings).
package enum GNSSFixState: String, Sendable, Equatable, Codable {
    /// No fix yet.
    case searching
    /// Fixes are arriving.
    case fixed
    /// A fix was had and has not been seen for the timeout (2 s).
    case lost
}

/// Fix state of a live GNSS source on the host clock, on top of the receiver-time tracking of
/// the parsers: a receiver (or gpsd) that goes quiet, or sends only untimed no-fix reports, still
/// counts as "lost" after 2 s without a fix.
struct GNSSFixWatch {
    /// `searching` (no fix yet), `fixed` or `lost`.
    private(set) var state = GNSSFixState.searching
    private var lastFixWall: Int64?
    /// ms without a fix before `lost`.
    let timeout: Int64 = 2_000

    /// Applies parser events; returns the new state if it changed.
    mutating func take(_ events: [GNSSEvent], now: Int64) -> GNSSFixState? {
        var changed: GNSSFixState?
        for event in events {
            switch event {
            case .fix:
                lastFixWall = now
                if state != .fixed { state = .fixed; changed = state }
            case .transition(.lost):
                if state == .fixed { state = .lost; changed = state }
            case .transition(.acquired):
                break
            }
        }
        return changed
    }

    /// When (Unix ms) ``tick(now:)`` would turn a fix `lost` if none arrives before; `nil` when
    /// no fix is held, so a reader waiting for data needs no timer.
    var deadline: Int64? {
        guard state == .fixed, let lastFixWall else { return nil }
        return lastFixWall + timeout
    }

    /// Checks the host-clock timeout; returns `lost` if it just expired.
    mutating func tick(now: Int64) -> GNSSFixState? {
        guard state == .fixed, let lastFixWall, now - lastFixWall >= timeout else { return nil }
        state = .lost
        return state
    }
}

extension GNSSFixWatch {
    /// Hands a receiver's decoded events on: their fixes and motion samples to `sink` in one
    /// call, fix acquired or lost as a note. What a GNSS source does with every read.
    mutating func hand(_ received: [ReceiverEvent], to sink: any SampleSink, now: Int64) {
        let samples = received.compactMap(\.sample)
        let events = received.compactMap { event -> GNSSEvent? in if case .gnss(let gnss) = event { gnss } else { nil } }
        if !samples.isEmpty { sink.deliver(samples) }
        if let state = take(events, now: now) { sink.note(.gnss(state: state)) }
    }
}
