import CaptureCore
import CaptureSensors
import CaptureStorage
import CaptureTestSupport
import Foundation
import Testing

@testable import CaptureRecorder

/// What the LEDs show for the recorder's state (issue 43, item 2): the ride rules' states event
/// by event, and a running recorder driving a fake LED and giving it back at its end.
@Suite struct IndicatorStateTests: StateMachineSuite {
    @Test func armedRecordingStillAndTheProblemsThatComeFirst() {
        var world = RideRulesTests.World(machine: RideRulesTests.armed())
        func state(at second: Int, delivering: Bool = false, loginGone: Bool = false) -> IndicatorState {
            let now = Self.t0 + Int64(second) * 1000
            return IndicatorState(world.machine.status(at: now), delivering: delivering, loginGone: loginGone, now: now)
        }
        #expect(state(at: 0) == .armed)
        #expect(state(at: 0, delivering: true) == .delivering, "between rides, a delivery shows")
        #expect(state(at: 0, loginGone: true) == .problem)
        world.run(5, speed: 5)
        #expect(state(at: 5) == .recordingWithFix, "the trace's fixes are fresh")
        #expect(state(at: 5, delivering: true) == .recordingWithFix, "recording shows over a delivery")
        #expect(state(at: 9) == .recordingWithoutFix, "no fix for over 2 s")
        world.run(3, speed: 0)
        #expect(state(at: 8) == .still)
        #expect(state(at: 8, loginGone: true) == .problem)
    }

    /// A recorder recording (no receiver) with one LED on a fake `/sys/class/leds`, and a reader
    /// of that LED's files.
    static func recordingWithAnLED() throws -> (RecorderHarness, (String) -> String) {
        let sysfs = FakeSysfs(prefix: "capture-leds")
        let led = sysfs.path + "/sys/class/leds/led0"
        try FileManager.default.createDirectory(atPath: led, withIntermediateDirectories: true)
        // The kernel makes delay_on and delay_off when the timer trigger is set; the fake has them.
        for (file, text) in [
            ("trigger", "none [mmc0] timer\n"), ("brightness", "0\n"), ("max_brightness", "1\n"), ("delay_on", "0\n"), ("delay_off", "0\n"),
        ] {
            try text.write(toFile: led + "/" + file, atomically: true, encoding: .utf8)
        }
        let harness = try RecorderHarness(flushInterval: 50, indicator: try IndicatorLEDs(names: ["led0"], root: sysfs.path))
        harness.feed.feed(acceleration(20))
        return (harness, { file in
            _ = sysfs  // kept until the test is done with the tree
            return ((try? String(contentsOfFile: led + "/" + file, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        })
    }

    @Test func aRecorderShowsItsStateOnItsLEDsAndGivesThemBackAtItsEnd() throws {
        let (harness, read) = try Self.recordingWithAnLED()
        // Recording, no receiver: blinking once a second.
        #expect(waitUntil { read("trigger") == "timer" && read("delay_on") == "500" }, "\(read("trigger"))")
        harness.command(.stop)
        #expect(harness.waitForEnd() != nil, "the recorder did not stop")
        #expect(read("trigger") == "mmc0" && read("brightness") == "0", "given back: \(read("trigger"))")
    }

    @Test func aStoreThatFailsLeavesTheProblemOnTheLEDs() throws {
        let (harness, read) = try Self.recordingWithAnLED()
        #expect(waitUntil { read("trigger") == "timer" && read("delay_on") == "500" }, "\(read("trigger"))")
        // The medium goes read-only under a commit: the decision the recorder takes on that
        // write's failure, fed to it as its driver feeds it.
        harness.recorder.feed { machine in
            let decision = machine.storeFailed(.writeFailed(path: harness.directory, reason: "Read-only file system"))
            guard case .stop(let actions) = decision else { return [] }
            return actions
        }
        let end = harness.waitForEnd(seconds: 20)
        #expect(end != nil && end! != nil, "the recording ended on the store's failure")
        #expect(read("trigger") == "timer" && read("delay_on") == "1800" && read("delay_off") == "200", "left showing the problem")
    }
}
