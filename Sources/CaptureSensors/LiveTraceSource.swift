package import CaptureCore

/// The argument of a `trace:` spec: the file, then the options a recorder writes into the source
/// names it stores, so that `capture resume` plays the trace on the same way:
/// `/rides/ride.trace@loop@delay=5200`.
///
/// - `@loop`: play the trace again from the top, on a new track, when it ends (`--loop`).
/// - `@delay=MS`: the trace was held for MS milliseconds while its recorder was down; every time
///   it hands over is that much later.
///
/// Options are only recognised at the end of the argument, so a file name with an `@` in it
/// still works unless it ends in one of them.
package struct TraceSpec: Sendable, Equatable {
    /// The trace file.
    package var path: String
    /// Whether the trace starts again from the top when it ends.
    package var loop: Bool
    /// Milliseconds the trace was held while its recorder was down.
    package var delay: Int64
    /// How many times faster than recorded it plays (1: live pace); benchmarks of long rides.
    package var speed: Double

    /// A spec of `path` with options.
    package init(path: String, loop: Bool = false, delay: Int64 = 0, speed: Double = 1) {
        self.path = path
        self.loop = loop
        self.delay = delay
        self.speed = speed
    }

    /// The fastest `@speed=` takes.
    package static let maximumSpeed = 10_000.0

    /// The longest hold `@delay=` takes: ten years in milliseconds. A larger value (typed by
    /// hand) would overflow the re-based times; it is not an option then but part of the path.
    package static let maximumDelay: Int64 = 10 * 366 * 86_400_000

    /// Splits the argument of a `trace:` spec into the file and its trailing options.
    package init(parsing argument: String) {
        var rest = Substring(argument)
        var loop = false
        var delay: Int64 = 0
        var speed = 1.0
        while let at = rest.lastIndex(of: "@") {
            let option = rest[rest.index(after: at)...]
            if option == "loop" {
                loop = true
            } else if option.hasPrefix("speed="), let value = Double(option.dropFirst("speed=".count)),
                value >= 1, value <= Self.maximumSpeed
            {
                speed = value
            } else if option.hasPrefix("delay="), let value = Int64(option.dropFirst("delay=".count)),
                (0...Self.maximumDelay).contains(value)
            {
                delay = value
            } else {
                break
            }
            rest = rest[..<at]
        }
        self.init(path: String(rest), loop: loop, delay: delay, speed: speed)
    }

    /// The argument that ``init(parsing:)`` reads back.
    package var argument: String {
        path + (loop ? "@loop" : "") + (speed != 1 ? "@speed=\(Self.number(speed))" : "") + (delay != 0 ? "@delay=\(delay)" : "")
    }

    /// A source's name as a person reads it (`capture status`): a trace's without the `@delay=`
    /// a recovery adds, which only the next recovery needs (the stored name keeps it).
    package static func shownName(_ name: String) -> String {
        guard name.hasPrefix("trace:") else { return name }
        var spec = TraceSpec(parsing: String(name.dropFirst("trace:".count)))
        spec.delay = 0
        return "trace:" + spec.argument
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int64(value)) : String(value)
    }
}

/// Plays a trace file at its own pace (or `speed` times faster) as a simulated device.
///
/// Its times are re-based so that the trace's first record happens when the measurement starts
/// (``SampleSink/measurementStart``), and it hands over the trace's marks (``drivesLifecycle``): the
/// `start` mark's modality is the measurement's initial one, `pause`, `resume` and `modality`
/// happen at their re-based times, and the measurement stops at the `stop` mark (or the last
/// record). With ``loop`` the trace instead pauses there and starts again from the top, its
/// times continuing, on a new track (its `start` mark then changes the modality back).
///
/// When motion decides the rides (`ride.detect: auto`, ``detectingRides()``), it plays as a
/// receiver would instead: from when it starts, live-paced on the host clock, its samples only
/// (the motion and stillness in them begin and end rides); its marks are left out and its end
/// ends nothing (with ``loop`` it plays again from the top).
package struct LiveTraceSource: SampleSource {
    package let file: TraceFile
    package let speed: Double
    /// Whether the trace starts again from the top when it ends.
    package var loop: Bool
    /// Milliseconds the trace was held while its recorder was down (``TraceSpec/delay``).
    package var delay: Int64
    /// Play time (re-based milliseconds since the measurement's start, minus ``delay``) up to
    /// which everything is already stored; records at or before it are skipped.
    package var playedThrough: Int64?
    /// Whether it plays as a receiver (``detectingRides()``): no marks, re-based onto its own start.
    package var asReceiver = false

    package init(path: String, speed: Double = 1, loop: Bool = false, delay: Int64 = 0) {
        file = TraceFile(path: path)
        self.speed = speed
        self.loop = loop
        self.delay = delay
    }

    package var name: String { "trace:" + TraceSpec(path: file.path, loop: loop, delay: delay, speed: speed).argument }

    package func initialModality() throws -> Modality? {
        struct Found: Error { let modality: Modality? }
        do {
            try file.forEachRecord { record, _ in
                if case .mark(.start(let modality), _) = record { throw Found(modality: modality) }
                throw Found(modality: nil)
            }
        } catch let found as Found {
            return found.modality
        }
        return nil
    }

    /// A trace's marks drive the measurement it is recorded into (not when it plays as a receiver).
    package var drivesLifecycle: Bool { !asReceiver }

    package var pace: Double { speed }

    package func detectingRides() -> any SampleSource {
        var receiver = self
        (receiver.asReceiver, receiver.delay, receiver.playedThrough) = (true, 0, nil)
        return receiver
    }

    /// Plays until the trace ends (after handing over its `stop`), fails, or `sink.stop` is given.
    /// As a receiver, its first record is now (nothing else has begun to re-base onto).
    package func run(into sink: any SampleSink) throws {
        try play(anchor: asReceiver ? WallClock.now() : sink.measurementStart + delay, sink: sink)
    }

    package func continuing(measurementStart: Int64, committedEnd: Int64, resumedAt: Int64) -> any SampleSource {
        var next = self
        next.playedThrough = committedEnd - measurementStart - delay
        next.delay = delay + max(0, resumedAt - committedEnd)
        return next
    }

    private struct Stopped: Error {}
    private struct EndOfPass: Error {}

    /// Plays pass after pass (one unless ``loop``); play time 0 (the trace's first record) is
    /// `anchor`. Pass `n` begins `n` periods later, a period being the trace's length plus 1 ms so
    /// that no two passes share a millisecond.
    private func play(anchor: Int64, sink: any SampleSink) throws {
        let stop = sink.stop
        var pass: Int64 = 0
        var period: Int64 = 0
        func scaled(_ playTime: Int64) -> Int64 { speed == 1 ? playTime : Int64((Double(playTime) / speed).rounded()) }
        func isStored(_ playTime: Int64) -> Bool { playedThrough.map { scaled(playTime) <= $0 } ?? false }
        do {
            while true {
                let base = pass * period
                var origin: Int64?
                var last: Int64 = 0
                do {
                    try file.forEachRecord { record, _ in
                        let time = record.timestamp
                        let first = origin ?? time
                        origin = first
                        last = max(last, time)
                        if case .mark(.stop, _) = record { throw EndOfPass() }
                        let playTime = base + (time - first)
                        guard !isStored(playTime) else { return }
                        let rebased = anchor + scaled(playTime)
                        guard stop.sleep(until: rebased) else { throw Stopped() }
                        switch record {
                        case .sample(var sample):
                            sample.shift(to: rebased)
                            sink.deliver([sample], at: rebased)
                        case .mark where asReceiver: break
                        case .mark(.start(let modality), _):
                            // The recorder began the measurement with it; a later pass changes back to it.
                            if pass > 0 { sink.mark(.modality(modality), at: rebased) }
                        case .mark(let command, _):
                            sink.mark(command, at: rebased)
                        }
                    }
                } catch is EndOfPass {}
                guard let origin else { return }
                let end = base + (last - origin)
                let rebasedEnd = anchor + scaled(end)
                if asReceiver {
                    // A receiver's end ends nothing: no stop, pause or resume; a loop plays on.
                    guard loop else { return }
                    period = last - origin + 1
                    pass += 1
                    continue
                }
                guard loop else {
                    guard stop.sleep(until: rebasedEnd) else { throw Stopped() }
                    sink.mark(.stop, at: rebasedEnd)
                    return
                }
                if !isStored(end) {
                    guard stop.sleep(until: rebasedEnd) else { throw Stopped() }
                    sink.mark(.pause, at: rebasedEnd)
                }
                period = last - origin + 1
                pass += 1
                if !isStored(pass * period) {
                    let rebasedStart = anchor + scaled(pass * period)
                    guard stop.sleep(until: rebasedStart) else { throw Stopped() }
                    sink.mark(.resume, at: rebasedStart)
                }
            }
        } catch is Stopped {
            return
        }
    }
}
