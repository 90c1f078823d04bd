package import CaptureConfig
import CaptureSensors
import CaptureWiring
import Glibc

extension Doctor {
    /// `indicator.leds`: each LED is there and this user can set its trigger. Nothing to say
    /// without LEDs configured.
    package func indicator(_ device: DeviceConfiguration) -> [DoctorCheck] {
        guard let leds = try? device.indicator().leds, !leds.isEmpty else { return [] }
        do {
            _ = try IndicatorLEDs(names: leds, root: sysfsRoot)
        } catch {
            return [.fail("leds", "\(error)", advise(.checkLEDs))]
        }
        let root = sysfsRoot.hasSuffix("/") ? sysfsRoot : sysfsRoot + "/"
        let locked = leds.filter { access(root + "sys/class/leds/\($0)/trigger", W_OK) != 0 }
        guard locked.isEmpty else {
            return [.fail("leds", "cannot set the trigger of \(locked.joined(separator: ", ")): permission denied", advise(.checkLEDs))]
        }
        return [.pass("leds", "\(leds.joined(separator: ", ")) can show the recorder's state")]
    }

    /// `button.device`: it is there, an input device (or a FIFO standing in for one), and this
    /// user can read it. Nothing to say without a button configured.
    package func button(_ device: DeviceConfiguration) -> [DoctorCheck] {
        guard let button = try? device.button(), let path = button.device else { return [] }
        var info = stat()
        guard stat(path, &info) == 0 else {
            return [.fail("button", "\(path): \(String(cString: strerror(errno)))", advise(.checkButton))]
        }
        let kind = info.st_mode & S_IFMT
        guard kind == S_IFCHR || kind == S_IFIFO else {
            return [.fail("button", "\(path) is not an input device", advise(.checkButton))]
        }
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            return [.fail("button", "cannot read \(path): \(String(cString: strerror(errno)))", advise(.checkButton))]
        }
        close(fd)
        let key = button.key.map { "key \($0)" } ?? "any key"
        return [.pass("button", "\(path) can be read (\(key); held \(button.longPress) ms ends or begins a ride)")]
    }
}
