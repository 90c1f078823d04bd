package import CaptureCore

/// What the box's LEDs say (`indicator.leds`), each state with a pattern of its own. A blinking
/// pattern is the kernel's `timer` trigger (`delay_on`/`delay_off`): the kernel blinks the LED,
/// and capture writes only when the state changes, so that a blinking LED costs no wake-ups.
package enum IndicatorState: String, Sendable, Equatable, CaseIterable {
    /// Waiting for motion (`ride.detect: auto`), or a measurement paused.
    case armed
    /// Recording, the receiver with a fix.
    case recordingWithFix = "recording-with-fix"
    /// Recording without a fix (no receiver, or it searches).
    case recordingWithoutFix = "recording-without-fix"
    /// A ride under way, standing still.
    case still
    /// Rides going to the collector (an uploader holds the data directory's upload lock).
    case delivering
    /// Something a person must fix: the login gone, the store full of rides not delivered, a
    /// source gone, the medium failing.
    case problem

    /// The LED's pattern: on for `on` ms and off for `off` ms, again and again; `nil` is on.
    package var pattern: (on: Int, off: Int)? {
        switch self {
        case .armed: (100, 2900)
        case .recordingWithFix: nil
        case .recordingWithoutFix: (500, 500)
        case .still: (100, 900)
        case .delivering: (100, 100)
        case .problem: (1800, 200)
        }
    }
}

/// `indicator.*`: the LEDs of the kernel's LED class (`/sys/class/leds/NAME`) that show the
/// recorder's state.
package struct IndicatorSettings: Sendable, Equatable, Codable {
    /// The LEDs' names, each showing the same pattern; none: no LED is driven.
    package var leds: [String]

    package init(leds: [String] = []) { self.leds = leds }

    package static let standard = IndicatorSettings()

    /// Reads `indicator.leds` from `settings` (scoped to `indicator`).
    package init(reading settings: some SettingsReader) throws(SettingsError) {
        self.init(leds: try settings.list("leds"))
    }
}
