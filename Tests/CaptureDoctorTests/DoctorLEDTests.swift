import CaptureConfig
import CaptureDoctor
import Foundation
import Testing

/// `capture doctor` on `indicator.leds` (issue 43, item 4): an LED that is not there fails with
/// what to do; one there passes; none configured says nothing.
@Suite struct DoctorLEDTests {
    @Test func anLEDThatIsNotThereFailsAndOneThatIsPasses() throws {
        let box = try DoctorDevice()
        let doctor = Doctor(seconds: 0.1, sysfsRoot: box.root)
        #expect(doctor.indicator(try box.device("")).isEmpty)
        let leds = try box.device("indicator: { leds: [led0] }")
        let missing = try #require(doctor.indicator(leds).first)
        #expect(missing.status == .fail && missing.detail.contains("sys/class/leds/led0/trigger: no such LED"), "\(missing.detail)")
        #expect(missing.advice?.contains("gpio-led") == true)
        let led = box.root + "/sys/class/leds/led0"
        try FileManager.default.createDirectory(atPath: led, withIntermediateDirectories: true)
        for (file, text) in [("trigger", "none [mmc0] timer\n"), ("brightness", "0\n"), ("max_brightness", "1\n")] {
            try text.write(toFile: led + "/" + file, atomically: true, encoding: .utf8)
        }
        let present = try #require(doctor.indicator(leds).first)
        #expect(present.status == .pass && present.check == "leds", "\(present.detail)")
    }
}
