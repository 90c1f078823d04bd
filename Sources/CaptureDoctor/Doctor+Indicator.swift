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
}
