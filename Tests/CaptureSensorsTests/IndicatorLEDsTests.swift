import CaptureSensors
import CaptureTestSupport
import Foundation
import Testing

/// The LEDs through the kernel's LED class (issue 43, item 2), on a fake `/sys/class/leds`.
@Suite struct IndicatorLEDsTests {
    /// A fake LED `name` as the kernel shows one: its triggers with `current` in brackets.
    static func led(_ sysfs: FakeSysfs, _ name: String, current: String = "mmc0", brightness: String = "0") throws -> String {
        let directory = sysfs.path + "/sys/class/leds/" + name
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let triggers = ["none", "mmc0", "timer", "heartbeat"].map { $0 == current ? "[\($0)]" : $0 }.joined(separator: " ")
        for (file, text) in [
            ("trigger", triggers + "\n"), ("brightness", brightness + "\n"), ("max_brightness", "255\n"), ("delay_on", "0\n"),
            ("delay_off", "0\n"),
        ] {
            try text.write(toFile: directory + "/" + file, atomically: true, encoding: .utf8)
        }
        return directory
    }

    static func read(_ directory: String, _ file: String) -> String {
        ((try? String(contentsOfFile: directory + "/" + file, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func eachStateIsItsOwnPatternAndBlinkingIsTheKernelsTimer() throws {
        #expect(Set(IndicatorState.allCases.map { $0.pattern.map { "\($0.on)/\($0.off)" } ?? "on" }).count == IndicatorState.allCases.count)
        let sysfs = FakeSysfs(prefix: "capture-leds")
        let led = try Self.led(sysfs, "led0")
        let leds = try IndicatorLEDs(names: ["led0"], root: sysfs.path)
        try leds.show(.recordingWithoutFix)
        #expect(Self.read(led, "trigger") == "timer" && Self.read(led, "delay_on") == "500" && Self.read(led, "delay_off") == "500")
        // The same state again writes nothing: the kernel blinks, capture does not wake for it.
        try "untouched".write(toFile: led + "/trigger", atomically: true, encoding: .utf8)
        try leds.show(.recordingWithoutFix)
        #expect(Self.read(led, "trigger") == "untouched")
        // Another blinking pattern writes the delays only: the timer is set already, and setting
        // it again would have the kernel make its delays anew.
        try leds.show(.still)
        #expect(Self.read(led, "trigger") == "untouched" && Self.read(led, "delay_on") == "100" && Self.read(led, "delay_off") == "900")
        try leds.show(.recordingWithFix)
        #expect(Self.read(led, "trigger") == "none" && Self.read(led, "brightness") == "255")
        try leds.show(.armed)
        #expect(Self.read(led, "trigger") == "timer" && Self.read(led, "delay_on") == "100" && Self.read(led, "delay_off") == "2900")
    }

    @Test func theLEDsAreGivenBackWhatTheyShowedBefore() throws {
        let sysfs = FakeSysfs(prefix: "capture-leds")
        let mmc = try Self.led(sysfs, "led0", current: "mmc0", brightness: "0")
        let blinking = try Self.led(sysfs, "led1", current: "timer", brightness: "255")
        try "250\n".write(toFile: blinking + "/delay_on", atomically: true, encoding: .utf8)
        try "750\n".write(toFile: blinking + "/delay_off", atomically: true, encoding: .utf8)
        let leds = try IndicatorLEDs(names: ["led0", "led1"], root: sysfs.path)
        try leds.show(.recordingWithFix)
        #expect(Self.read(mmc, "trigger") == "none" && Self.read(blinking, "trigger") == "none")
        leds.restore()
        #expect(Self.read(mmc, "trigger") == "mmc0" && Self.read(mmc, "brightness") == "0")
        #expect(Self.read(blinking, "trigger") == "timer" && Self.read(blinking, "delay_on") == "250" && Self.read(blinking, "delay_off") == "750")
    }

    @Test func aProblemLeftOnIsGivenBackOffByTheNextRecorder() throws {
        let sysfs = FakeSysfs(prefix: "capture-leds")
        let led = try Self.led(sysfs, "led0", current: "mmc0", brightness: "0")
        try IndicatorLEDs(names: ["led0"], root: sysfs.path).leaveShowingProblem()
        #expect(Self.read(led, "trigger") == "timer" && Self.read(led, "delay_on") == "1800" && Self.read(led, "delay_off") == "200")
        // As the kernel shows it to the next recorder: the timer in brackets, still blinking so.
        try "none mmc0 [timer] heartbeat\n".write(toFile: led + "/trigger", atomically: true, encoding: .utf8)
        let next = try IndicatorLEDs(names: ["led0"], root: sysfs.path)
        try next.show(.armed)
        next.restore()
        #expect(Self.read(led, "trigger") == "none" && Self.read(led, "brightness") == "0", "not the problem again: off")
    }

    @Test func anLEDThatIsNotThereIsAnErrorNamingIt() throws {
        let sysfs = FakeSysfs(prefix: "capture-leds")
        #expect(throws: DeviceError.self) { try IndicatorLEDs(names: ["nosuch"], root: sysfs.path) }
        do {
            _ = try IndicatorLEDs(names: ["nosuch"], root: sysfs.path)
        } catch {
            #expect("\(error)".contains("/sys/class/leds/nosuch/trigger") && "\(error)".contains("no such LED"))
        }
    }
}
