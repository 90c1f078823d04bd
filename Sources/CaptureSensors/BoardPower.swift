import Foundation

/// What a Raspberry Pi says of its power supply, under a root directory (`/`, or a fake tree):
/// the firmware's throttling flags and the hwmon under-voltage alarm. Read by
/// `capture doctor --system` and pushed with the fleet's heartbeat.
package struct BoardPower: Sendable, Equatable {
    /// The firmware's throttling flags (`get_throttled`): bit 0 under-voltage now, bit 1
    /// frequency capped, bit 2 throttled, bit 3 soft temperature limit; bits 16–19 the same
    /// since boot. nil on a board without the firmware's file.
    package var throttled: UInt32?
    /// The hwmon under-voltage alarm (`rpi_volt` `in0_lcrit_alarm`) is set now; nil without one.
    package var underVoltageAlarm: Bool?

    package init(throttled: UInt32? = nil, underVoltageAlarm: Bool? = nil) {
        self.throttled = throttled
        self.underVoltageAlarm = underVoltageAlarm
    }

    /// Reads the board under `root`.
    package init(root: String = "/") {
        let sys = SysfsDirectory(path: (root as NSString).appendingPathComponent("sys"))
        let flags = sys.appending("devices/platform/soc/soc:firmware").value("get_throttled")
        throttled = flags.flatMap { $0.hasPrefix("0x") ? UInt32($0.dropFirst(2), radix: 16) : UInt32($0) }
        let hwmon = sys.appending("class/hwmon")
        for entry in hwmon.entries() where hwmon.appending(entry).value("name") == "rpi_volt" {
            underVoltageAlarm = hwmon.appending(entry).value("in0_lcrit_alarm").map { $0 == "1" }
        }
    }

    /// Whether the board says anything of its power.
    package var reports: Bool { throttled != nil || underVoltageAlarm != nil }

    /// Under-voltage now (the firmware's bit 0, or the hwmon alarm).
    package var underVoltageNow: Bool { (throttled ?? 0) & 0x1 != 0 || underVoltageAlarm == true }

    /// Under-voltage now or at any time since boot (bit 16).
    package var underVoltageSinceBoot: Bool { underVoltageNow || (throttled ?? 0) & 0x1_0000 != 0 }

    /// Throttled or its frequency capped, now or since boot, by heat or power (bits 1–3, 17–19).
    package var throttledSinceBoot: Bool { (throttled ?? 0) & 0xE_000E != 0 }
}
