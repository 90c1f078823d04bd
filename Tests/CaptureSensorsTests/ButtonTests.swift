import CaptureCore
import Foundation
import Glibc
import Testing

@testable import CaptureSensors

/// The rider's button (issue 43, item 1): key events into presses (contact bounce merged, short
/// and long told apart), the evdev record, `button.*`, and the reader on a FIFO named as the device.
@Suite struct ButtonTests {
    static let t0: Int64 = 1_700_000_000_000
    static let enter: UInt16 = 28

    static func key(_ value: Int32, at time: Int64, code: UInt16 = enter) -> InputEvent {
        InputEvent(time: t0 + time, type: InputEvent.key, code: code, value: value)
    }

    /// Feeds `events`, then lets `until` pass; every press decided.
    static func presses(_ events: [InputEvent], until: Int64, key: UInt16? = enter) -> [ButtonPress] {
        var decoder = ButtonDecoder(key: key, longPress: 2000)
        var presses = events.flatMap { decoder.take($0) }
        while let deadline = decoder.deadline, deadline <= t0 + until { presses += decoder.expire(at: deadline) }
        return presses
    }

    @Test func aShortPressMarksTheMomentItWentDownOnceTheContactSettled() {
        var decoder = ButtonDecoder(key: Self.enter, longPress: 2000)
        #expect(decoder.take(Self.key(1, at: 0)).isEmpty && decoder.take(Self.key(0, at: 150)).isEmpty)
        #expect(decoder.deadline == Self.t0 + 150 + ButtonDecoder.debounce)
        #expect(decoder.expire(at: Self.t0 + 170).isEmpty, "the contact may still bounce")
        #expect(decoder.expire(at: Self.t0 + 180) == [.short(at: Self.t0)])
        #expect(decoder.deadline == nil)
    }

    @Test func contactBounceNeverCountsTwice() {
        // Closing and opening, each bouncing for a few milliseconds.
        let bouncing = [
            Self.key(1, at: 0), Self.key(0, at: 3), Self.key(1, at: 6), Self.key(0, at: 9), Self.key(1, at: 12),
            Self.key(0, at: 200), Self.key(1, at: 204), Self.key(0, at: 207),
        ]
        #expect(Self.presses(bouncing, until: 10_000) == [.short(at: Self.t0)])
        // Two presses 100 ms apart are two.
        let twice = [Self.key(1, at: 0), Self.key(0, at: 80), Self.key(1, at: 180), Self.key(0, at: 260)]
        #expect(Self.presses(twice, until: 10_000) == [.short(at: Self.t0), .short(at: Self.t0 + 180)])
    }

    @Test func aPressHeldForLongPressIsLongWithoutWaitingForItsRelease() {
        var decoder = ButtonDecoder(key: Self.enter, longPress: 2000)
        _ = decoder.take(Self.key(1, at: 0))
        // The key repeats while held (value 2): nothing.
        #expect(decoder.take(Self.key(2, at: 500)).isEmpty)
        #expect(decoder.deadline == Self.t0 + 2000)
        #expect(decoder.expire(at: Self.t0 + 2000) == [.long(at: Self.t0 + 2000)])
        #expect(decoder.take(Self.key(0, at: 3500)).isEmpty, "its release is no press of its own")
        #expect(decoder.deadline == nil)
        // Read late: the release's time decides it was long.
        #expect(Self.presses([Self.key(1, at: 0), Self.key(0, at: 2600)], until: 2600) == [.long(at: Self.t0 + 2000)])
    }

    @Test func otherKeysAndEventTypesAreNotTheButtonUnlessAnyKeyIs() {
        let other = [Self.key(1, at: 0, code: 30), Self.key(0, at: 100, code: 30)]
        #expect(Self.presses(other, until: 10_000).isEmpty)
        #expect(Self.presses(other, until: 10_000, key: nil) == [.short(at: Self.t0)])
        // A synchronisation report (EV_SYN) between them changes nothing.
        let sync = InputEvent(time: Self.t0 + 50, type: 0, code: 0, value: 0)
        #expect(Self.presses([Self.key(1, at: 0), sync, Self.key(0, at: 100)], until: 10_000) == [.short(at: Self.t0)])
    }

    @Test func anInputEventReadsBackFromItsBytes() {
        let event = InputEvent(time: Self.t0 + 123, type: 1, code: 0x110, value: -1)
        #expect(event.bytes.count == InputEvent.size)
        #expect(InputEvent(bytes: event.bytes) == event)
        // seconds 1, microseconds 500000: 1500 ms; EV_KEY 28 pressed.
        let bytes: [UInt8] = [1, 0, 0, 0, 0, 0, 0, 0, 0x20, 0xA1, 0x07, 0, 0, 0, 0, 0, 1, 0, 28, 0, 1, 0, 0, 0]
        #expect(InputEvent(bytes: bytes) == InputEvent(time: 1500, type: 1, code: 28, value: 1))
    }

    @Test func buttonKeyTakesNumbersAndNames() {
        #expect(ButtonSettings.code(of: "28") == 28 && ButtonSettings.code(of: "0x100") == 0x100)
        #expect(ButtonSettings.code(of: "key_enter") == 28 && ButtonSettings.code(of: "KEY_POWER") == 116)
        #expect(ButtonSettings.code(of: "0x300") == nil && ButtonSettings.code(of: "KEY_NOPE") == nil)
        #expect(ButtonSettings.code(of: "-1") == nil)
    }

    /// A FIFO named as the device: the reader hands over presses as a person makes them, and a
    /// writer that closes and comes back (a device replugged) changes nothing.
    @Test func theReaderHandsOverPressesFromTheDevice() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("capture-button-\(UUID().uuidString)").path
        #expect(mkfifo(path, 0o600) == 0)
        defer { unlink(path) }
        let reader = try #require(ButtonReader(ButtonSettings(device: path, key: Self.enter, longPress: 500)))
        let running = RunningReader(reader)
        func press(held: Int64) throws {
            let fd = open(path, O_WRONLY)
            try #require(fd >= 0)
            defer { close(fd) }
            let now = WallClock.now()
            for event in [
                InputEvent(time: now, type: 1, code: Self.enter, value: 1),
                InputEvent(time: now + held, type: 1, code: Self.enter, value: 0),
            ] {
                #expect(write(fd, event.bytes, InputEvent.size) == InputEvent.size)
            }
        }
        try press(held: 100)
        #expect(waitFor { running.presses.count == 1 })
        try press(held: 100)
        #expect(waitFor { running.presses.count == 2 })
        // Held past long_press (written at once, so decided by the release's time).
        try press(held: 800)
        #expect(waitFor { running.presses.count == 3 })
        let all = running.presses
        #expect(all.prefix(2).allSatisfy { if case .short = $0 { true } else { false } })
        if case .long = all.last {} else { Issue.record("expected a long press last, got \(all)") }
        #expect(running.stop(), "the reader ends when stopped")
    }

    @Test func aDeviceNotThereIsSaidOnceAndOpenedWhenItComes() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("capture-button-\(UUID().uuidString)").path
        defer { unlink(path) }
        let reader = try #require(ButtonReader(ButtonSettings(device: path)))
        let running = RunningReader(reader)
        #expect(waitFor { running.notes.count == 1 })
        usleep(1_500_000)
        #expect(running.notes.count == 1, "said once, not at each try: \(running.notes)")
        #expect(mkfifo(path, 0o600) == 0)
        #expect(waitFor { running.notes.count == 2 })
        #expect(running.notes.last?.contains("is back") == true)
        #expect(running.stop())
    }

    /// A path that opens but gives nothing (here an empty file; `/dev/null` would do the same):
    /// said once, tried again each second without a word, never in a busy loop.
    @Test func aDeviceThatGivesNothingIsSaidOnce() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("capture-button-\(UUID().uuidString)").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        defer { unlink(path) }
        let reader = try #require(ButtonReader(ButtonSettings(device: path)))
        let running = RunningReader(reader)
        usleep(2_500_000)
        #expect(running.stop())
        #expect(running.notes.count == 1 && running.notes.first?.contains("went") == true, "\(running.notes)")
    }
}

/// A reader on a thread of its own, as the recorder runs it, with what it handed over and said.
private final class RunningReader: @unchecked Sendable {
    private let signal = StopSignal()
    private let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var pressed: [ButtonPress] = []
    private var said: [String] = []

    init(_ reader: ButtonReader) {
        Thread { [self] in
            reader.run(
                stop: signal, pressed: { press in self.lock.withLock { self.pressed.append(press) } },
                note: { line in self.lock.withLock { self.said.append(line) } })
            done.signal()
        }.start()
    }

    var presses: [ButtonPress] { lock.withLock { pressed } }
    var notes: [String] { lock.withLock { said } }

    /// Stops the reader; whether it ended within 5 s.
    func stop() -> Bool {
        signal.stop()
        return done.wait(timeout: .now() + 5) == .success
    }
}

private func waitFor(seconds: Double = 10, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(20_000)
    }
    return condition()
}
