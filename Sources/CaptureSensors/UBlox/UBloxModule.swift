package import CaptureCore
package import CaptureGNSS

/// What a u-blox module says it is, in its answer to a `UBX-MON-VER` poll.
///
/// MON-VER (class 0x0A, id 0x04) answers an empty poll with a 30-byte software version, a
/// 10-byte hardware version and any number of 30-byte extension strings, each NUL-padded
/// (u-blox 8 / M8 protocol specification UBX-13003221, "UBX-MON-VER"; the same layout in the
/// F9 and M10 interface descriptions). The extensions carry `KEY=VALUE` pairs from protocol 15
/// on: `FWVER=UDR 1.00`, `PROTVER=19.20`, `MOD=NEO-M8U`.
package struct UBloxModule: Sendable, Equatable, Codable {
    /// `ROM CORE 3.01 (107888)`.
    package var software: String
    /// `00080000` (u-blox 8 / M8), `00190000` (F9, M9), `000A0000` (M10).
    package var hardware: String
    /// The extension strings, in order.
    package var extensions: [String]

    /// A module with these version strings.
    package init(software: String, hardware: String, extensions: [String]) {
        self.software = software
        self.hardware = hardware
        self.extensions = extensions
    }

    /// Reads a MON-VER answer's payload; `nil` when it is shorter than the two fixed strings or
    /// its extensions are not whole 30-byte blocks.
    package init?(monVer payload: [UInt8]) {
        guard payload.count >= 40, (payload.count - 40) % 30 == 0 else { return nil }
        func string(_ range: Range<Int>) -> String {
            String(decoding: payload[range].prefix { $0 != 0 }, as: UTF8.self)
        }
        software = string(0..<30)
        hardware = string(30..<40)
        extensions = stride(from: 40, to: payload.count, by: 30).map { string($0..<($0 + 30)) }
    }

    /// The MON-VER payload of this module (the inverse of ``init(monVer:)``), for simulated
    /// receivers.
    package var monVerPayload: [UInt8] {
        func padded(_ text: String, _ width: Int) -> [UInt8] {
            let bytes = Array(text.utf8.prefix(width - 1))
            return bytes + [UInt8](repeating: 0, count: width - bytes.count)
        }
        return padded(software, 30) + padded(hardware, 10) + extensions.flatMap { padded($0, 30) }
    }

    /// The value of an extension `KEY=VALUE`.
    package func value(_ key: String) -> String? {
        extensions.lazy.compactMap { line -> String? in
            guard line.hasPrefix(key + "=") else { return nil }
            return String(line.dropFirst(key.count + 1))
        }.first
    }

    /// The module's name (`MOD=`), e.g. `NEO-M8U`, `ZED-F9R`.
    package var model: String? { value("MOD") }

    /// The firmware (`FWVER=`), e.g. `UDR 1.00`, `HPS 1.21`, `SPG 3.01`.
    package var firmware: String? { value("FWVER") }

    /// The UBX protocol version (`PROTVER=`), e.g. 19.2; `nil` before protocol 15.
    package var protocolVersion: Double? { value("PROTVER").flatMap { Double($0) } }

    /// How the module is configured.
    package enum Generation: String, Sendable, Equatable, Codable {
        /// u-blox 8 / M8 and older: one `CFG-*` message per concern (`CFG-MSG`, `CFG-RATE`,
        /// `CFG-NAV5`, `CFG-CFG`).
        case legacy
        /// M9, F9, M10 (protocol 27 and later): configuration items set by `CFG-VALSET`.
        case configurationItems
    }

    /// `configurationItems` from protocol 27 (the first F9 firmware) on; F9, M9 and M10
    /// hardware with an unreadable protocol too.
    package var generation: Generation {
        if let version = protocolVersion { return version >= 27 ? .configurationItems : .legacy }
        return ["00190000", "000A0000"].contains(hardware) ? .configurationItems : .legacy
    }

    /// A dead-reckoning module: an IMU inside, sensor fusion firmware (M8 ADR/UDR, F9 HPS,
    /// the automotive F9K and NEO-F9V), so ESF output exists.
    package var deadReckoning: Bool {
        let models = ["M8U", "M8L", "F9R", "F9K", "F9V"]
        let firmwares = ["ADR", "UDR", "HPS"]
        return models.contains { model?.contains($0) == true } || firmwares.contains { firmware?.hasPrefix($0) == true }
    }

    /// Whether the module has `UBX-HNR-PVT`: the M8 dead-reckoning firmware (ADR, UDR). The
    /// F9 ones give the same high-rate solution as NAV-PVT in priority navigation mode.
    package var hasHighRateNavigation: Bool { deadReckoning && generation == .legacy }

    /// `NEO-M8U (UDR 1.00, protocol 19.20)`.
    package var description: String {
        let details = [firmware, protocolVersion.map { "protocol " + String(format2: $0) }].compactMap { $0 }
        let name = model ?? "u-blox module (hardware \(hardware))"
        return details.isEmpty ? name : "\(name) (\(details.joined(separator: ", ")))"
    }
}

extension String {
    /// `19.20`: two decimals, without Foundation.
    init(format2 value: Double) {
        let hundredths = Int((value * 100).rounded())
        let fraction = hundredths % 100
        self = "\(hundredths / 100)." + (fraction < 10 ? "0" : "") + "\(fraction)"
    }
}

extension UBXFrame {
    /// UBX-MON-VER (0x0A 0x04): with an empty payload, the poll.
    package static let monVerKind: UInt16 = 0x0A04
}
