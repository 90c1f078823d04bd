import CaptureCore
import Testing

@testable import CaptureRecorder

/// `capture status`'s rates (issue 46, item 11): over the last 10 s of capturing, not an
/// average that falls across a pause.
@Suite struct StatusRateTests: StateMachineSuite {
    /// One second at 100 Hz from `second`, then its flush.
    static func second(_ machine: inout Machine, _ second: Int) {
        let start = t0 + Int64(second) * 1000
        let samples = (0..<100).map { Sample.motion(.accelerometer, MotionSample(timestamp: start + Int64($0) * 10, x: 0, y: 0, z: 9.81)) }
        _ = machine.take([(samples, start + 990)], dropped: 0, capacity: 1000, from: 0)
        _ = machine.flushDue(at: start + 1000)
    }

    static func rate(_ machine: Machine, at time: Int64) -> Double? {
        machine.status(at: time).sensors.first { $0.sensor == "acc" }?.rate
    }

    @Test func aPauseDoesNotDragTheRatesDown() throws {
        var machine = Machine(sources: [.init(name: "iio:iio:device0")], flushInterval: 1000)
        _ = try machine.start(modality: .bicycle, at: Self.t0)
        _ = machine.began(measurement: 1, at: Self.t0)
        for second in 0..<5 { Self.second(&machine, second) }
        #expect(Self.rate(machine, at: Self.t0 + 5_000) == 100)
        _ = machine.command(.pause, at: Self.t0 + 5_000, by: .control)
        for second in 5..<13 { _ = machine.flushDue(at: Self.t0 + Int64(second + 1) * 1000) }
        #expect(Self.rate(machine, at: Self.t0 + 13_000) == 0, "paused, nothing is captured")
        _ = machine.command(.resume, at: Self.t0 + 13_000, by: .control)
        for second in 13..<16 { Self.second(&machine, second) }
        // Three seconds after the resume, the accelerometer's 100 Hz (the old average over the
        // last 10 s, 7 of them paused, said 30).
        #expect(Self.rate(machine, at: Self.t0 + 16_000) == 100)
    }
}
