package import CaptureCore

/// Collects bytes read from `/dev/iio:deviceX` into whole scans.
///
/// The kernel hands out whole scans only, but a FIFO standing in for the device in tests (or a
/// short read) can return part of one, so partial scans are kept until the rest arrives.
package struct IIOScanReassembler: Sendable {
    /// Bytes per scan (``IIOScanLayout/scanSize``).
    package let scanSize: Int
    private var pending: [UInt8] = []

    /// - Parameter scanSize: bytes per scan; with 0 nothing is ever emitted.
    package init(scanSize: Int) {
        self.scanSize = scanSize
    }

    /// Bytes of an incomplete scan waiting for the rest.
    package var pendingByteCount: Int { pending.count }

    /// Adds bytes; returns the complete scans now available, back to back (a multiple of
    /// ``scanSize`` bytes, possibly empty).
    package mutating func push(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        guard scanSize > 0 else { return [] }
        pending.append(contentsOf: bytes)
        let complete = pending.count / scanSize * scanSize
        guard complete > 0 else { return [] }
        let scans = Array(pending[0..<complete])
        pending.removeFirst(complete)
        return scans
    }
}
