package import CaptureCore

/// `button.*`: the rider's button, a key of a Linux input device (`/dev/input/…`, the evdev
/// interface a Raspberry Pi's `gpio-key` overlay or a USB presenter gives).
package struct ButtonSettings: Sendable, Equatable, Codable {
    /// The input device (`button.device`); nil: no button.
    package var device: String?
    /// The key code that is the button (`button.key`, `linux/input-event-codes.h`); nil: any key.
    package var key: UInt16?
    /// How long a press must be held to end or begin a ride (`button.long_press`, ms).
    package var longPress: Int64

    package init(device: String? = nil, key: UInt16? = nil, longPress: Int64 = 2000) {
        self.device = device
        self.key = key
        self.longPress = longPress
    }

    package static let standard = ButtonSettings()

    /// Reads `button.*` from `settings` (scoped to `button`).
    package init(reading settings: some SettingsReader) throws(SettingsError) {
        let word = try settings.text("key") ?? "any"
        var key: UInt16?
        if word.lowercased() != "any" {
            guard let code = Self.code(of: word) else { throw settings.invalid("key", found: word) }
            key = code
        }
        self.init(device: try settings.text("device"), key: key, longPress: try settings.milliseconds("long_press"))
    }

    /// The key code `word` names: a number (decimal or `0x…`) up to `KEY_MAX` (0x2ff), or one of
    /// ``keyNames`` in any case; nil when it is neither.
    package static func code(of word: String) -> UInt16? {
        let word = word.uppercased()
        if let named = keyNames[word] { return named }
        let number = word.hasPrefix("0X") ? UInt16(word.dropFirst(2), radix: 16) : UInt16(word)
        return number.flatMap { $0 <= 0x2ff ? $0 : nil }
    }

    /// The names `button.key` takes beside numbers: the keys the devices a button comes from
    /// send (a `gpio-key` overlay's default, presenters, foot switches, a keyboard's Enter).
    package static let keyNames: [String: UInt16] = [
        "KEY_ENTER": 28, "KEY_SPACE": 57, "KEY_UP": 103, "KEY_PAGEUP": 104, "KEY_DOWN": 108, "KEY_PAGEDOWN": 109,
        "KEY_POWER": 116, "KEY_PROG1": 148, "KEY_PLAYPAUSE": 164, "BTN_0": 0x100, "BTN_1": 0x101, "BTN_LEFT": 0x110,
        "BTN_TRIGGER": 0x120,
    ]
}

/// One `struct input_event` of the evdev interface (`linux/input.h`) on a 64-bit kernel: a
/// `timeval` (seconds and microseconds, two 64-bit words), the type, the code and the value.
package struct InputEvent: Sendable, Equatable {
    /// The record's size in bytes.
    package static let size = 24
    /// `EV_KEY`: a key or button; value 1 pressed, 0 released, 2 repeated while held.
    package static let key: UInt16 = 1

    /// When the kernel took it, Unix ms (the device's clock: `CLOCK_REALTIME` unless changed).
    package var time: Int64
    package var type: UInt16
    package var code: UInt16
    package var value: Int32

    package init(time: Int64, type: UInt16, code: UInt16, value: Int32) {
        self.time = time
        self.type = type
        self.code = code
        self.value = value
    }

    /// Decodes one record (little-endian, as the machines capture runs on are).
    package init(bytes: some Collection<UInt8>) {
        let bytes = Array(bytes)
        precondition(bytes.count == Self.size, "an input_event is \(Self.size) bytes")
        func word<T: FixedWidthInteger>(_ offset: Int, _: T.Type) -> T {
            (0..<MemoryLayout<T>.size).reduce(T.zero) { $0 | T(truncatingIfNeeded: bytes[offset + $1]) << ($1 * 8) }
        }
        let seconds = word(0, Int64.self), microseconds = word(8, Int64.self)
        self.init(
            time: seconds &* 1000 &+ microseconds / 1000, type: word(16, UInt16.self), code: word(18, UInt16.self),
            value: word(20, Int32.self))
    }

    /// The record's bytes (what a test's fake device writes).
    package var bytes: [UInt8] {
        func word<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
            (0..<MemoryLayout<T>.size).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
        }
        let seconds = time >= 0 ? time / 1000 : (time - 999) / 1000
        return word(seconds) + word((time - seconds * 1000) * 1000) + word(type) + word(code) + word(value)
    }
}

/// What the rider did with the button.
package enum ButtonPress: Sendable, Equatable {
    /// A press shorter than `button.long_press`, at the moment it went down: marks that moment.
    case short(at: Int64)
    /// A press held for `button.long_press`, decided when it was held that long (at `at`),
    /// without waiting for its release: ends the ride under way, or begins one when armed.
    case long(at: Int64)
}

/// Turns a button's key events into presses: contact bounce merged, short and long told apart.
///
/// A mechanical contact bounces for a few milliseconds as it closes and opens: a release followed
/// within ``debounce`` by another press is the same press. So a short press is decided
/// ``debounce`` after its release (``deadline``), a long one when held for `long_press`.
///
/// ```swift
/// var decoder = ButtonDecoder(key: 28, longPress: 2000)
/// let presses = decoder.take(event)           // on each event read
/// let more = decoder.expire(at: now)           // when `decoder.deadline` passes
/// ```
package struct ButtonDecoder: Sendable, Equatable {
    /// How long after a release another press is still the same one (contact bounce), ms.
    package static let debounce: Int64 = 30

    package let key: UInt16?
    package let longPress: Int64

    enum Phase: Sendable, Equatable {
        case up
        /// Held since `since`; `long` once the long press was reported.
        case down(since: Int64, long: Bool)
        /// Released at `at`, a press that went down at `since`: decided at `at + debounce`.
        case released(since: Int64, at: Int64)
    }

    private(set) var phase = Phase.up

    package init(key: UInt16?, longPress: Int64) {
        self.key = key
        self.longPress = longPress
    }

    /// When something is decided if no event comes first (Unix ms, the events' clock); nil:
    /// nothing waits.
    package var deadline: Int64? {
        switch phase {
        case .up, .down(_, long: true): nil
        case .down(let since, long: false): since + longPress
        case .released(_, let at): at + Self.debounce
        }
    }

    /// What was decided by `now` with no event since.
    package mutating func expire(at now: Int64) -> [ButtonPress] {
        guard let deadline, now >= deadline else { return [] }
        switch phase {
        case .down(let since, false):
            phase = .down(since: since, long: true)
            return [.long(at: since + longPress)]
        case .released(let since, _):
            phase = .up
            return [.short(at: since)]
        default: return []
        }
    }

    /// Takes one event of the device; what it decided (a press that waited, decided by the
    /// event's time, comes first).
    package mutating func take(_ event: InputEvent) -> [ButtonPress] {
        guard event.type == InputEvent.key, key == nil || event.code == key else { return [] }
        let presses = expire(at: event.time)
        switch (event.value, phase) {
        case (1, .up): phase = .down(since: event.time, long: false)
        case (1, .released(let since, _)): phase = .down(since: since, long: false)  // bounce: the same press
        case (0, .down(let since, false)): phase = .released(since: since, at: event.time)
        case (0, .down(_, true)): phase = .up
        default: break  // a repeat while held, or a release never seen pressed
        }
        return presses
    }
}
