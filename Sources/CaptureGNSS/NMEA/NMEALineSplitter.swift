package import CaptureCore

/// Cuts a byte stream (tty, pty, file, socket) into lines.
///
/// A line ends at `\n`, at `\r\n` or at a lone `\r` (some receivers and pty settings produce
/// each of these). Empty lines are dropped. Bytes are buffered across calls, so a sentence split
/// over two reads comes out whole. A run of more than ``maximumLineLength`` bytes without a line
/// end (binary garbage, a wrong baud rate) is discarded and counted in ``discardedOverlongLines``.
package struct NMEALineSplitter: Sendable {
    /// Longest line kept, in bytes; longer runs are dropped.
    package let maximumLineLength: Int
    /// How many over-long runs were dropped so far.
    package private(set) var discardedOverlongLines = 0

    private var pending: [UInt8] = []
    private var discarding = false

    /// - Parameter maximumLineLength: longest line kept (default 4096 bytes, far above any NMEA sentence).
    package init(maximumLineLength: Int = 4096) {
        self.maximumLineLength = maximumLineLength
    }

    /// Adds bytes and returns the lines they complete (without line endings).
    package mutating func push(_ bytes: some Sequence<UInt8>) -> [String] {
        var lines: [String] = []
        for byte in bytes {
            if byte == 0x0A || byte == 0x0D {
                endLine(into: &lines)
            } else if !discarding {
                pending.append(byte)
                if pending.count > maximumLineLength {
                    pending.removeAll(keepingCapacity: true)
                    discarding = true
                    discardedOverlongLines += 1
                }
            }
        }
        return lines
    }

    /// Returns the last, unterminated line at the end of the stream (if any) and resets.
    package mutating func finish() -> [String] {
        var lines: [String] = []
        endLine(into: &lines)
        return lines
    }

    private mutating func endLine(into lines: inout [String]) {
        if !discarding, !pending.isEmpty {
            lines.append(String(decoding: pending, as: UTF8.self))
        }
        pending.removeAll(keepingCapacity: true)
        discarding = false
    }
}
