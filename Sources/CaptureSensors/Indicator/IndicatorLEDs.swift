import Glibc

/// The LEDs that show ``IndicatorState``, through the kernel's LED class under a root (`/`, or a
/// fake tree in tests): what each LED showed before (its trigger, brightness and, with the
/// `timer` trigger, its delays) is kept when they are opened and given back by ``restore()``.
package final class IndicatorLEDs: @unchecked Sendable {
    /// What an LED showed before capture drove it.
    struct Saved {
        var trigger: String
        var brightness: String
        var delays: (on: String, off: String)?
    }

    private let leds: [(directory: SysfsDirectory, saved: Saved, maximum: String)]
    /// Touched only by the recorder's driver thread.
    private var shown: IndicatorState?
    /// Whether every LED has the timer trigger set by ``show(_:)``: a change between two
    /// blinking patterns then writes the delays only, and the kernel does not make them anew.
    private var timerSet = false

    /// Opens the LEDs `names` under `root`.
    ///
    /// - Throws: ``DeviceError`` for an LED that is not there or whose trigger cannot be read
    ///   (`capture doctor` says which).
    package init(names: [String], root: String = "/") throws(DeviceError) {
        var leds: [(SysfsDirectory, Saved, String)] = []
        for name in names {
            let directory = SysfsDirectory(path: (root.hasSuffix("/") ? root : root + "/") + "sys/class/leds/" + name)
            guard let triggers = directory.value("trigger") else {
                throw DeviceError(path: directory.path + "/trigger", action: "read", reason: "no such LED")
            }
            let trigger = Self.current(triggers) ?? "none"
            let delays = trigger == "timer" ? directory.value("delay_on").flatMap { on in directory.value("delay_off").map { (on, $0) } } : nil
            var saved = Saved(trigger: trigger, brightness: directory.value("brightness") ?? "0", delays: delays)
            // Left showing a problem by a recorder whose medium failed (``leaveShowingProblem()``):
            // what it showed before that is not known, and it is given back off.
            if let (on, off) = IndicatorState.problem.pattern, delays.map({ $0 == ("\(on)", "\(off)") }) ?? false {
                saved = Saved(trigger: "none", brightness: "0", delays: nil)
            }
            leds.append((directory, saved, directory.value("max_brightness") ?? "1"))
        }
        self.leds = leds
    }

    /// The trigger in force: the bracketed word of the `trigger` file (`none [timer] heartbeat`).
    static func current(_ triggers: String) -> String? {
        triggers.split(separator: " ").first { $0.hasPrefix("[") && $0.hasSuffix("]") }.map { String($0.dropFirst().dropLast()) }
    }

    /// Shows `state` on every LED if it is not shown already.
    ///
    /// - Throws: ``DeviceError`` when an LED cannot be written (the state is tried again next time).
    package func show(_ state: IndicatorState) throws(DeviceError) {
        guard state != shown else { return }
        let hadTimer = timerSet
        (shown, timerSet) = (nil, false)
        for led in leds {
            if let (on, off) = state.pattern {
                if !hadTimer {
                    try led.directory.write("trigger", "timer")
                    Self.awaitWritable(led.directory.path + "/delay_on")
                }
                try led.directory.write("delay_on", "\(on)")
                try led.directory.write("delay_off", "\(off)")
            } else {
                try led.directory.write("trigger", "none")
                try led.directory.write("brightness", led.maximum)
            }
        }
        (shown, timerSet) = (state, state.pattern != nil)
    }

    /// Waits (at most a second) until this process may write `path`: the kernel makes a timer's
    /// delays anew, as root's, when the trigger is set, and the package's udev rule hands them to
    /// the recorder's group a moment later (`60-capture-leds.rules`).
    static func awaitWritable(_ path: String) {
        for _ in 0..<100 where access(path, W_OK) != 0 { usleep(10_000) }
    }

    /// Shows ``IndicatorState/problem`` and leaves it on after the process: its store failed (a
    /// medium gone read-only, I/O errors, a full disk), which a person must fix, and no recorder
    /// will show anything until one has. The next recorder to open an LED showing it gives the
    /// LED back off when it ends.
    package func leaveShowingProblem() {
        try? show(.problem)
    }

    /// Gives every LED back what it showed before (best effort: a LED gone stays as it is).
    package func restore() {
        for led in leds {
            try? led.directory.write("trigger", led.saved.trigger)
            if let delays = led.saved.delays {
                try? led.directory.write("delay_on", delays.on)
                try? led.directory.write("delay_off", delays.off)
            } else {
                try? led.directory.write("brightness", led.saved.brightness)
            }
        }
        (shown, timerSet) = (nil, false)
    }
}
