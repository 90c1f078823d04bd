import CaptureCore
@testable import CaptureRecorder
import CaptureStorage
@testable import capture
import Testing

/// What `capture status` prints, made from the report's values.
struct StatusTextTests {
    static let t0: Int64 = 1_700_000_000_000

    @Test func armedItSaysSinceWhenAndCountsTheRides() {
        var machine = RecorderStateMachine(
            sources: [.init(name: "gpsd", clock: .gnss)], flushInterval: 1000, hostSynchronized: true,
            ride: RideSettings(detect: .auto, endAfterStill: 10_000, preRoll: 3_000, minDistance: 50))
        _ = machine.arm(modality: .bicycle, at: Self.t0)
        var report = StatusReport(dataDirectory: "/d", state: .idle)
        report.recorder = machine.status(at: Self.t0 + 2_000)
        report.ride = report.recorder?.ride
        report.rides = RideTally([.begunByMotion: 2, .endedByPower: 1, .discardedAsStill: 1, .endedByButton: 1])
        let armed = report.text(interrupted: "")
        #expect(armed.hasPrefix("armed since "), "\(armed)")
        #expect(armed.contains("rides      begun 2 by motion, 0 by size; ended 0 by motion, 1 by power"), "\(armed)")
        #expect(armed.contains(", 1 by the button; 1 discarded as still"), "\(armed)")
        #expect(!armed.contains("begun 2 by motion, 0 by size, "), "no ride begun by the button: not said")
    }

    @Test func aRideStandingStillSaysSinceWhenAndHowFarItCame() {
        var report = StatusReport(dataDirectory: "/d", state: .capturing)
        report.measurement = 9
        report.ride = RideStatus(state: .still, since: Self.t0, distance: 231)
        let still = report.text(interrupted: "")
        #expect(still.contains("  ride       still since "), "\(still)")
        #expect(still.contains("231 m so far") || still.contains("0.23 km so far"), "\(still)")
    }

    @Test func anInterruptedMeasurementSaysWhatBecameOfItsRecorder() {
        var report = StatusReport(dataDirectory: "/d", state: .interrupted)
        report.measurement = 4
        report.recorderStarting = true
        let starting = report.text(interrupted: "RESUME")
        #expect(starting.contains("a new recorder is starting") && !starting.contains("RESUME"))
        report.recorderStarting = nil
        report.ended = RecordingEnd(kind: .storeFull, reason: "the disk holding /d is full")
        let ended = report.text(interrupted: "resume or stop")
        #expect(ended.contains("the recorder is not running: resume or stop"))
        #expect(ended.contains("\n  ended      the store was full: "), "\(ended)")
    }

    @Test func uploadsAreCountedByTheirState() {
        var report = StatusReport(dataDirectory: "/d", state: .idle)
        report.uploads = ["interrupted": 1, "uploaded": 2]
        let text = report.text(interrupted: "")
        #expect(text.contains("uploads    2 uploaded, 1 interrupted"), "\(text)")
    }
}
