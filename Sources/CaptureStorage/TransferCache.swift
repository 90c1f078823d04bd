import CaptureCore
import CaptureTransfer
import Crypto
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the transfer file and its fingerprint need of one sensor's stored batches, added up batch
/// by batch.
struct BatchTally {
    private(set) var summary = CyfaceBatchSummary()
    private var idSum: Int64 = 0
    /// The lowest and highest batch id; `nil` without batches.
    private(set) var ids: ClosedRange<Int64>?
    private var sampleCount: Int64 = 0
    private var firstTimestamp: Int64 = 0
    private var lastTimestamp: Int64 = 0
    private var spanSum: Int64 = 0

    mutating func add(length: Int, id: Int64, count: Int64, first: Int64, last: Int64) {
        if summary.batchCount == 0 {
            firstTimestamp = first
            lastTimestamp = last
        }
        summary.add(bodyByteCount: length)
        idSum &+= id
        ids = ids.map { min($0.lowerBound, id)...max($0.upperBound, id) } ?? id...id
        sampleCount &+= count
        firstTimestamp = min(firstTimestamp, first)
        lastTimestamp = max(lastTimestamp, last)
        spanSum &+= last &- first
    }

    /// The count, body bytes, framed bytes, id sum, highest id, sample count, first and last
    /// timestamp and summed time spans, 0 each without batches.
    var fingerprintFields: String {
        [
            Int64(summary.batchCount), Int64(summary.bodyByteCount), Int64(summary.fieldContentByteCount), idSum,
            ids?.upperBound ?? 0, sampleCount, firstTimestamp, lastTimestamp, spanSum,
        ].map(String.init).joined(separator: " ")
    }
}

/// The sidecar `<id>.ccyf.meta`: one line `fingerprint size sha256`.
enum TransferCache {
    /// The cached file, if its sidecar matches `fingerprint` and the file has the recorded size.
    static func valid(path: String, metaPath: String, fingerprint: String) -> TransferFile? {
        guard let data = FileManager.default.contents(atPath: metaPath),
            let text = String(data: data, encoding: .utf8)
        else { return nil }
        let parts = text.split(whereSeparator: \.isWhitespace).map(String.init)
        guard parts.count == 3, parts[0] == fingerprint, let size = Int64(parts[1]), parts[2].count == 64,
            let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            (attributes[.size] as? NSNumber)?.int64Value == size
        else { return nil }
        return TransferFile(path: path, size: size, sha256: parts[2])
    }

    /// Writes the sidecar atomically. A failure only costs a re-serialisation next time.
    static func store(_ file: TransferFile, fingerprint: String, metaPath: String) {
        guard let meta = try? AtomicFile(path: metaPath) else { return }
        do {
            try meta.append(Array("\(fingerprint) \(file.size) \(file.sha256)\n".utf8))
            try meta.commit()
        } catch {
            meta.discard()
        }
    }

    static func remove(_ path: String) {
        _ = unlink(path)
    }
}
