package import CaptureCore

/// One u-blox UBX frame: `0xB5 0x62`, class, id, little-endian payload length, payload, and two
/// checksum bytes (the 8-bit Fletcher sum over class, id, length and payload).
///
/// Frame layout and checksum as in the u-blox 8 / M8 receiver description and protocol
/// specification (UBX-13003221), section "UBX Protocol" ("UBX Frame Structure", "UBX Checksum").
package struct UBXFrame: Sendable, Equatable {
    /// The two sync characters.
    package static let sync: (UInt8, UInt8) = (0xB5, 0x62)
    /// Header (sync, class, id, length) plus checksum: the bytes of a frame besides its payload.
    package static let overhead = 8

    /// Message class (`0x01` NAV, `0x10` ESF, …).
    package var messageClass: UInt8
    /// Message id within the class.
    package var messageID: UInt8
    /// The payload, without header and checksum.
    package var payload: [UInt8]

    /// A frame with this class, id and payload.
    package init(messageClass: UInt8, messageID: UInt8, payload: [UInt8]) {
        self.messageClass = messageClass
        self.messageID = messageID
        self.payload = payload
    }

    /// The message kind, `class << 8 | id` (e.g. `0x0107` for NAV-PVT).
    package var kind: UInt16 { UInt16(messageClass) << 8 | UInt16(messageID) }

    /// The frame's bytes on the wire, checksum included.
    package var bytes: [UInt8] {
        var body: [UInt8] = [messageClass, messageID, UInt8(payload.count & 0xFF), UInt8(payload.count >> 8 & 0xFF)]
        body += payload
        let (a, b) = Self.checksum(body[...])
        return [Self.sync.0, Self.sync.1] + body + [a, b]
    }

    /// The 8-bit Fletcher checksum of `bytes` (class through payload).
    package static func checksum(_ bytes: ArraySlice<UInt8>) -> (UInt8, UInt8) {
        var a: UInt8 = 0
        var b: UInt8 = 0
        for byte in bytes {
            a &+= byte
            b &+= a
        }
        return (a, b)
    }
}

/// Counters of ``UBXFrameSplitter``.
package struct UBXFramingStats: Sendable, Equatable {
    /// Frames with a good checksum.
    package var frames = 0
    /// Candidate frames (sync, header, full length) whose checksum did not match; their bytes
    /// were handed on as text and the search went on after the first sync byte.
    package var badChecksum = 0
    /// Headers taken for garbage: an unknown message class, or a payload longer than
    /// ``UBXFrameSplitter/maximumPayloadLength``.
    package var implausibleHeaders = 0
    /// A frame (UBX, or RTCM 3 with a plausible header) cut off by the end of the input.
    package var truncatedAtEnd = 0
    /// RTCM 3 frames (CRC-24Q verified) taken out of the stream and skipped: correction data a
    /// base station or a timing receiver sends (ZED-F9T, ZED-F9P), no fixes.
    package var rtcm3Frames = 0

    /// All zero.
    package init() {}

    /// Damaged frames (bad checksum, cut off).
    package var rejected: Int { badChecksum + truncatedAtEnd }
}

/// Separates UBX frames from everything else in a receiver's byte stream, and takes RTCM 3
/// frames out of it.
///
/// The rest (NMEA text, comments, line noise) comes out as text, in order, for the NMEA
/// pipeline. A frame is only taken when its checksum matches: after a mismatch the sync byte is
/// handed on as text and the search resumes at the next byte, so garbage that happens to contain
/// `0xB5 0x62` costs at most the bytes of the bogus header, and a real frame right after it is
/// still found. Bytes are buffered across calls: a frame split over several `read()`s comes out
/// whole. Pure: no I/O.
///
/// RTCM 3 frames (RTCM 10403, "Transport Layer"): preamble `0xD3`, 6 reserved zero bits and a
/// 10-bit length, the message (its number in the first 12 bits), and a 24-bit CRC-24Q over
/// preamble to message, big-endian. One is taken when its CRC matches and its message number is a
/// standard (1001–1300) or proprietary (4001–4095) one; it is counted (``UBXFramingStats/rtcm3Frames``)
/// and skipped, so receivers that mix RTCM 3 with UBX or NMEA leave no garbage in the text.
package struct UBXFrameSplitter: Sendable {
    /// What ``push(_:)`` returns, in stream order.
    package enum Piece: Sendable, Equatable {
        /// A frame with a good checksum.
        case frame(UBXFrame)
        /// Bytes that are not part of a UBX frame or an RTCM 3 frame.
        case text([UInt8])
    }

    /// Longest payload taken for real. UBX messages a receiver sends are shorter (NAV-SAT with
    /// 100 satellites is about 1.2 kB, RXM-RAWX with 64 signals about 2 kB); a longer length is
    /// taken for garbage, so that a stray `0xB5 0x62` does not hold back the following text for long.
    package let maximumPayloadLength: Int
    /// Counters since creation.
    package private(set) var stats = UBXFramingStats()

    private var buffer: [UInt8] = []

    /// The message classes a receiver sends or answers with (NAV, RXM, INF, ACK, CFG, UPD, MON,
    /// AID, TIM, ESF, MGA, LOG, SEC, HNR, NAV2); a header with any other class is taken for
    /// garbage without waiting for its payload.
    package static let knownClasses: Set<UInt8> = [
        0x01, 0x02, 0x04, 0x05, 0x06, 0x09, 0x0A, 0x0B, 0x0D, 0x10, 0x13, 0x21, 0x27, 0x28, 0x29,
    ]

    /// - Parameter maximumPayloadLength: longest payload accepted (default 4096 bytes).
    package init(maximumPayloadLength: Int = 4096) {
        self.maximumPayloadLength = maximumPayloadLength
    }

    /// Adds bytes; returns the frames and text they complete.
    package mutating func push(_ bytes: some Sequence<UInt8>) -> [Piece] {
        buffer.append(contentsOf: bytes)
        return drain(final: false)
    }

    /// Ends the input: a frame still incomplete is counted as truncated and its bytes handed on
    /// as text.
    package mutating func finish() -> [Piece] {
        drain(final: true)
    }

    private mutating func drain(final: Bool) -> [Piece] {
        var pieces: [Piece] = []
        var text: [UInt8] = []
        var position = 0
        func flushText() {
            if !text.isEmpty {
                pieces.append(.text(text))
                text.removeAll()
            }
        }
        // An incomplete candidate at the end of the input is no frame: its first byte is text
        // and the search goes on behind it (a real frame may follow a bogus header).
        func incomplete(_ start: Int, counted: Bool) -> Bool {
            guard final else { return false }
            if counted { stats.truncatedAtEnd += 1 }
            text.append(buffer[start])
            position = start + 1
            return true
        }
        scan: while position < buffer.count {
            guard let start = buffer[position...].firstIndex(where: { $0 == UBXFrame.sync.0 || $0 == RTCM3.preamble }) else {
                text += buffer[position...]
                position = buffer.count
                break
            }
            text += buffer[position..<start]
            position = start
            let available = buffer.count - start
            if buffer[start] == RTCM3.preamble {
                switch RTCM3.frameLength(buffer[start...]) {
                case .frame(let total):
                    flushText()
                    stats.rtcm3Frames += 1
                    position = start + total
                case .incomplete:
                    // Counted as cut off when its header was seen whole (length and message number).
                    if incomplete(start, counted: available >= 5) { continue }
                    break scan
                case .none:
                    text.append(buffer[start])
                    position = start + 1
                }
                continue
            }
            if available < 2 {
                if incomplete(start, counted: false) { continue }
                break scan
            }
            if buffer[start + 1] != UBXFrame.sync.1 {
                text.append(buffer[start])
                position = start + 1
                continue
            }
            if available >= 3, !Self.knownClasses.contains(buffer[start + 2]) {
                stats.implausibleHeaders += 1
                text.append(buffer[start])
                position = start + 1
                continue
            }
            if available < 6 {
                if incomplete(start, counted: true) { continue }
                break scan
            }
            let length = Int(buffer[start + 4]) | Int(buffer[start + 5]) << 8
            if length > maximumPayloadLength {
                stats.implausibleHeaders += 1
                text.append(buffer[start])
                position = start + 1
                continue
            }
            let total = length + UBXFrame.overhead
            if available < total {
                if incomplete(start, counted: true) { continue }
                break scan
            }
            let (a, b) = UBXFrame.checksum(buffer[(start + 2)..<(start + 6 + length)])
            if a == buffer[start + 6 + length], b == buffer[start + 7 + length] {
                flushText()
                pieces.append(
                    .frame(
                        UBXFrame(
                            messageClass: buffer[start + 2], messageID: buffer[start + 3],
                            payload: Array(buffer[(start + 6)..<(start + 6 + length)]))))
                stats.frames += 1
                position = start + total
            } else {
                stats.badChecksum += 1
                text.append(buffer[start])
                position = start + 1
            }
        }
        flushText()
        buffer.removeFirst(position)
        return pieces
    }
}

/// RTCM 3 transport-layer framing, as far as needed to recognise and skip whole frames.
enum RTCM3 {
    /// The first byte of a frame.
    static let preamble: UInt8 = 0xD3

    /// What the bytes at the start of a buffer are.
    enum Candidate: Equatable {
        /// A whole frame with a matching CRC, of this many bytes.
        case frame(Int)
        /// A plausible header whose frame has not fully arrived.
        case incomplete
        /// No frame.
        case none
    }

    /// Whether `bytes` (starting with the preamble) begin with an RTCM 3 frame.
    static func frameLength(_ bytes: ArraySlice<UInt8>) -> Candidate {
        let start = bytes.startIndex
        guard bytes.count >= 2 else { return .incomplete }
        guard bytes[start + 1] & 0xFC == 0 else { return .none }
        guard bytes.count >= 5 else { return .incomplete }
        let length = Int(bytes[start + 1] & 0x03) << 8 | Int(bytes[start + 2])
        let number = Int(bytes[start + 3]) << 4 | Int(bytes[start + 4]) >> 4
        guard length >= 2, (1001...1300).contains(number) || (4001...4095).contains(number) else { return .none }
        let total = 3 + length + 3
        guard bytes.count >= total else { return .incomplete }
        let crc = crc24q(bytes[start..<(start + 3 + length)])
        let sent = UInt32(bytes[start + 3 + length]) << 16 | UInt32(bytes[start + 4 + length]) << 8 | UInt32(bytes[start + 5 + length])
        return crc == sent ? .frame(total) : .none
    }

    /// CRC-24Q (polynomial 0x1864CFB, initial value 0), as RTCM 3 and SBAS use it.
    static func crc24q(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0
        for byte in bytes {
            crc ^= UInt32(byte) << 16
            for _ in 0..<8 {
                crc <<= 1
                if crc & 0x100_0000 != 0 { crc ^= 0x186_4CFB }
            }
        }
        return crc & 0xFF_FFFF
    }
}
