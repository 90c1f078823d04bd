package import CaptureCore

/// The two-letter talker identifier at the start of an NMEA 0183 address field.
///
/// `GP` GPS, `GN` combined multi-GNSS solution, `GL` GLONASS, `GA` Galileo, `GB`/`BD` BeiDou
/// (both spellings occur in real receivers), `GQ` QZSS. Proprietary sentences (`$PGRME`,
/// `$PQGSV`) have no talker; their address starts with `P`.
package enum NMEATalker: Sendable, Hashable {
    /// `GP`
    case gps
    /// `GN`: a solution combining several systems.
    case multiGNSS
    /// `GL`
    case glonass
    /// `GA`
    case galileo
    /// BeiDou; `code` keeps the spelling the receiver used (`GB` or `BD`).
    case beidou(code: String)
    /// `GQ`
    case qzss
    /// A proprietary sentence: `$P` followed by a manufacturer code and a type (`GRME` for `$PGRME`).
    case proprietary
    /// Any other two-letter talker (`II`, `EC`, …), kept verbatim.
    case other(String)

    /// Classifies a two-letter talker code.
    package init(code: String) {
        switch code {
        case "GP": self = .gps
        case "GN": self = .multiGNSS
        case "GL": self = .glonass
        case "GA": self = .galileo
        case "GB", "BD": self = .beidou(code: code)
        case "GQ": self = .qzss
        default: self = .other(code)
        }
    }

    /// The two-letter code as it appears in a sentence (`"P"` for proprietary sentences).
    package var code: String {
        switch self {
        case .gps: "GP"
        case .multiGNSS: "GN"
        case .glonass: "GL"
        case .galileo: "GA"
        case .beidou(let code): code
        case .qzss: "GQ"
        case .proprietary: "P"
        case .other(let code): code
        }
    }
}

/// Why a line is not a usable NMEA 0183 sentence.
package enum NMEAFrameError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The line does not start with `$` (or `!` for encapsulated sentences such as AIVDM).
    case missingStartDelimiter
    /// The line ends before the `*hh` checksum: usually a sentence cut off by a reset or a buffer overrun.
    case truncated
    /// The two characters after `*` are not hexadecimal, or characters follow them.
    case malformedChecksum
    /// The transmitted checksum differs from the XOR of the characters between the start delimiter and `*`.
    case checksumMismatch(expected: UInt8, found: UInt8)
    /// The sentence is longer than allowed (82 bytes in strict mode, the tolerant limit otherwise).
    case tooLong(length: Int)
    /// The sentence contains a byte outside printable ASCII (0x20…0x7E).
    case invalidCharacter
    /// The address field is neither a talker plus type (`GPRMC`) nor proprietary (`PGRME`).
    case malformedAddress

    package var description: String {
        switch self {
        case .missingStartDelimiter: "not an NMEA sentence: it does not start with '$' or '!'"
        case .truncated: "truncated sentence: no '*hh' checksum at the end"
        case .malformedChecksum: "malformed checksum: expected two hexadecimal digits after '*'"
        case .checksumMismatch(let expected, let found):
            "checksum mismatch: computed \(NMEAChecksum.hex(expected)), sentence says \(NMEAChecksum.hex(found))"
        case .tooLong(let length): "sentence too long (\(length) bytes)"
        case .invalidCharacter: "sentence contains a non-printable or non-ASCII byte"
        case .malformedAddress: "malformed address field (expected e.g. 'GPRMC' or 'PGRME')"
        }
    }
}

/// How strictly ``NMEASentence/init(validating:options:)`` checks framing.
package struct NMEAFramingOptions: Sendable, Equatable {
    /// NMEA 0183's limit: 82 bytes including the start delimiter and the CR LF.
    package static let standardMaximumLength = 82

    /// When `true`, sentences longer than ``standardMaximumLength`` are rejected. Real receivers
    /// exceed it (high-precision RTK positions, NMEA 4.x extra fields), so the default is tolerant.
    package var enforceStandardLength: Bool
    /// The hard limit in tolerant mode, in bytes including the start delimiter and CR LF.
    package var tolerantMaximumLength: Int
    /// When `false`, a sentence without `*hh` is accepted unchecked (some old receivers omit it).
    package var requireChecksum: Bool

    /// - Parameters:
    ///   - enforceStandardLength: reject sentences over 82 bytes (default `false`).
    ///   - tolerantMaximumLength: the limit when not enforcing the standard one (default 1024 bytes).
    ///   - requireChecksum: reject sentences without a checksum (default `true`).
    package init(enforceStandardLength: Bool = false, tolerantMaximumLength: Int = 1024, requireChecksum: Bool = true) {
        self.enforceStandardLength = enforceStandardLength
        self.tolerantMaximumLength = tolerantMaximumLength
        self.requireChecksum = requireChecksum
    }

    /// Rejects anything over 82 bytes.
    package static let strict = NMEAFramingOptions(enforceStandardLength: true)
}

/// The NMEA 0183 checksum: the 8-bit XOR of every character between the start delimiter and `*`.
package enum NMEAChecksum {
    /// XOR of all bytes in `body` (the characters between `$`/`!` and `*`, exclusive).
    package static func compute(_ body: some Sequence<UInt8>) -> UInt8 {
        body.reduce(0, ^)
    }

    /// Two upper-case hexadecimal digits, as transmitted.
    package static func hex(_ value: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(value >> 4)], digits[Int(value & 0x0F)]])
    }

    /// Appends `*hh` to a sentence body such as `$GPGGA,…` (handy for building test input).
    package static func seal(_ sentence: String) -> String {
        let body = sentence.utf8.dropFirst()
        return sentence + "*" + hex(compute(body))
    }
}

/// One framed, checksum-verified NMEA 0183 sentence, split into fields.
///
/// `$GPRMC,113258,A,…*6B` becomes talker ``NMEATalker/gps``, type `"RMC"` and `fields`
/// `["113258", "A", …]` (the address is not among the fields; empty fields stay empty strings).
package struct NMEASentence: Sendable, Equatable {
    /// `$` for ordinary sentences, `!` for encapsulated ones.
    package var startDelimiter: Character
    /// Who sent it.
    package var talker: NMEATalker
    /// The sentence type, e.g. `RMC`; for proprietary sentences everything after `P` (`GRME`, `QGSV`).
    package var type: String
    /// The data fields after the address, without the checksum.
    package var fields: [String]
    /// `true` if the sentence exceeded the standard 82 bytes but was accepted in tolerant mode.
    package var exceedsStandardLength: Bool

    /// Builds a sentence from parts (no validation; for tests and synthetic input).
    package init(talker: NMEATalker, type: String, fields: [String], startDelimiter: Character = "$") {
        self.startDelimiter = startDelimiter
        self.talker = talker
        self.type = type
        self.fields = fields
        self.exceedsStandardLength = false
    }

    /// Frames and validates one line.
    ///
    /// Trailing CR, LF, spaces and tabs are ignored, so `\r\n`, `\n` and a stray `\r` all work.
    /// The length limit counts the sentence plus the CR LF it is supposed to end with.
    package init(validating line: some StringProtocol, options: NMEAFramingOptions = .init()) throws(NMEAFrameError) {
        var bytes = Array(line.utf8)
        while let last = bytes.last, last == 0x0D || last == 0x0A || last == 0x20 || last == 0x09 {
            bytes.removeLast()
        }
        guard let first = bytes.first, first == UInt8(ascii: "$") || first == UInt8(ascii: "!") else {
            throw .missingStartDelimiter
        }
        let length = bytes.count + 2
        if options.enforceStandardLength, length > NMEAFramingOptions.standardMaximumLength {
            throw .tooLong(length: length)
        }
        if length > options.tolerantMaximumLength { throw .tooLong(length: length) }
        guard bytes.allSatisfy({ $0 >= 0x20 && $0 <= 0x7E }) else { throw .invalidCharacter }

        let body: ArraySlice<UInt8>
        if let star = bytes.lastIndex(of: UInt8(ascii: "*")) {
            let checksumText = bytes[(star + 1)...]
            guard checksumText.count >= 2 else { throw .truncated }
            guard checksumText.count == 2, let high = Self.hexValue(checksumText[star + 1]),
                let low = Self.hexValue(checksumText[star + 2])
            else { throw .malformedChecksum }
            body = bytes[1..<star]
            let expected = NMEAChecksum.compute(body)
            let found = high << 4 | low
            guard expected == found else { throw .checksumMismatch(expected: expected, found: found) }
        } else {
            guard !options.requireChecksum else { throw .truncated }
            body = bytes[1...]
        }

        let parts = body.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
        let address = parts.first ?? ""
        guard address.count >= 2, address.utf8.allSatisfy({ Self.isAlphanumeric($0) }) else {
            throw .malformedAddress
        }
        if address.hasPrefix("P") {
            talker = .proprietary
            type = String(address.dropFirst())
        } else {
            guard address.count >= 3 else { throw .malformedAddress }
            talker = NMEATalker(code: String(address.prefix(2)))
            type = String(address.dropFirst(2))
        }
        startDelimiter = first == UInt8(ascii: "$") ? "$" : "!"
        fields = Array(parts.dropFirst())
        exceedsStandardLength = length > NMEAFramingOptions.standardMaximumLength
    }

    /// The field at `index`, or `""` when the sentence is shorter (absent trailing fields count as empty).
    package func field(_ index: Int) -> String {
        index < fields.count ? fields[index] : ""
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }
}
