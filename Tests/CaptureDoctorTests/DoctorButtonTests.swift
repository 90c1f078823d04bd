import CaptureConfig
import CaptureDoctor
import Foundation
import Glibc
import Testing

/// `capture doctor` on `button.device` (issue 43, item 4): a device that is not there, or is a
/// plain file, fails with what to do; a readable one passes; none configured says nothing.
@Suite struct DoctorButtonTests {
    @Test func aButtonThatIsNotThereFailsAndOneThatIsPasses() throws {
        let box = try DoctorDevice()
        let doctor = Doctor(seconds: 0.1, sysfsRoot: box.root)
        #expect(doctor.button(try box.device("")).isEmpty)
        let path = box.root + "/button-event"
        let configured = try box.device("button: { device: \(path), key: KEY_ENTER }")
        let missing = try #require(doctor.button(configured).first)
        #expect(missing.status == .fail && missing.detail.contains("No such file"), "\(missing.detail)")
        #expect(missing.advice?.contains("gpio-key") == true)
        try "".write(toFile: path, atomically: true, encoding: .utf8)
        let plain = try #require(doctor.button(configured).first)
        #expect(plain.status == .fail && plain.detail.contains("not an input device"), "\(plain.detail)")
        unlink(path)
        #expect(mkfifo(path, 0o600) == 0)
        let present = try #require(doctor.button(configured).first)
        #expect(present.status == .pass && present.check == "button" && present.detail.contains("key 28"), "\(present.detail)")
    }
}
