public import ArgumentParser
import CaptureCore
import CaptureSensors
import Synchronization

// Option values with a closed set of spellings or a range, parsed once, here. A refused value
// gets its own line (`unknown modality 'rocket'; use one of …`) instead of ArgumentParser's
// generic "The value … is invalid" (see ``RejectedArgument``).

extension Modality: ExpressibleByArgument {
    /// Any case: `bicycle`, `Bicycle`, `BICYCLE`.
    init?(argument: String) {
        let refusal = "unknown modality '\(argument)'; use one of \(Modality.spellings)"
        guard let value = RejectedArgument.parse(argument, { Modality(parsing: $0) }, else: refusal) else { return nil }
        self = value
    }
}

extension ByteSize: ExpressibleByArgument {
    /// `65536`, `512K`, `64M`, `2G` (see ``ByteSize/init(parsing:)``).
    init?(argument: String) {
        let refusal = "--max-store-size must be a size such as \(ByteSize.examples)"
        guard let value = RejectedArgument.parse(argument, { ByteSize(parsing: $0) }, else: refusal) else { return nil }
        self = value
    }
}

extension GNSSTimePolicy: ExpressibleByArgument {
    /// `auto`, `always` or `never`, any case.
    init?(argument: String) {
        let refusal = "--gnss-time must be auto, always or never, not '\(argument)'"
        guard let value = RejectedArgument.parse(argument, { GNSSTimePolicy(rawValue: $0.lowercased()) }, else: refusal) else { return nil }
        self = value
    }
}

/// `--flush-interval`: seconds between commits, 0.05 to 3600 (start, replay, the recorder).
struct FlushInterval: ExpressibleByArgument, Equatable {
    /// The interval in seconds.
    let seconds: Double

    static let `default` = FlushInterval(checked: 1)

    private init(checked seconds: Double) {
        self.seconds = seconds
    }

    init?(argument: String) {
        let refusal = "--flush-interval must be between 0.05 and 3600 seconds"
        guard let seconds = RejectedArgument.parse(argument, { Double($0).flatMap { (0.05...3600).contains($0) ? $0 : nil } }, else: refusal) else { return nil }
        self.seconds = seconds
    }

    /// The interval in milliseconds, as the recorder and the replay take it.
    var milliseconds: Int64 { Int64((seconds * 1000).rounded()) }

    var defaultValueDescription: String { "\(seconds)" }
}

/// `--rate`: an IIO sampling rate in Hz (``SourceOptions/isAcceptable(rate:)``).
struct SamplingRate: ExpressibleByArgument, Equatable {
    /// The rate in Hz.
    let hertz: Double

    init?(argument: String) {
        let refusal = "--rate must be a number of Hz above 0 and at most 100000"
        guard let hertz = RejectedArgument.parse(argument, { Double($0).flatMap { SourceOptions.isAcceptable(rate: $0) ? $0 : nil } }, else: refusal) else { return nil }
        self.hertz = hertz
    }
}

/// Why the last typed option value was refused: ArgumentParser reports a failed
/// `init?(argument:)` as "The value 'X' is invalid for '--option <name>'", which cannot carry
/// the reason, so the type notes its own line here and `Capture.main` prints that instead.
enum RejectedArgument {
    private static let last = Mutex<(value: String, message: String)?>(nil)

    /// `argument` parsed by `parse`; when that gives nothing, `message` is noted as the reason.
    static func parse<Value>(_ argument: String, _ parse: (String) -> Value?, else message: String) -> Value? {
        let value = parse(argument)
        if value == nil { note(argument, message) }
        return value
    }

    /// Notes that `value` was refused, and the line that says why.
    static func note(_ value: String, _ message: String) {
        last.withLock { $0 = (value, message) }
    }

    /// The line for ArgumentParser's `message`: the refusing type's own when the message is
    /// about the value it refused, else `message` unchanged.
    static func message(replacing message: String) -> String {
        guard let noted = last.withLock({ $0 }), message.hasPrefix("The value '\(noted.value)' is invalid") else {
            return message
        }
        return noted.message
    }
}
