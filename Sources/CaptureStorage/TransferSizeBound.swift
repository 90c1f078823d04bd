public import CaptureCore

/// The largest transfer file a measurement can make: an upper bound, so that a measurement
/// continued while recording (the recorder's seam) or cut into parts before an upload
/// (``Store/cutIntoParts(_:limit:)``) is never refused for size by `collector.payload_limit`.
///
/// Every motion value's delta fits 32 bits (``Recording/storable(_:)``), so a packed zigzag
/// varint takes at most 5 bytes and a timestamp delta at most 10: 25 bytes a motion sample. A fix
/// has at most 10 fields of at most 10 bytes; a pressure sample 2. Deflate adds at most 5 bytes per
/// 64 KiB of input it cannot compress (0.01 %); 64 KiB more cover the headers, events and
/// the metadata. Real rides compress to a fraction of this.
public enum TransferSizeBound {
    /// Bytes of one motion sample, uncompressed, at most.
    public static let perMotionSample: Int64 = 25
    /// Bytes of one fix, uncompressed, at most.
    public static let perFix: Int64 = 100
    /// Bytes of one pressure sample, at most.
    public static let perPressure: Int64 = 20
    /// Headers, a few events and the metadata.
    public static let overhead: Int64 = 65_536

    /// The bound for a measurement with these counts.
    public static func bytes(_ counts: SampleCounts) -> Int64 {
        let motion = Int64(counts.accelerometer + counts.gyroscope + counts.magnetometer) * perMotionSample
        return bytes(raw: motion + Int64(counts.locations) * perFix + Int64(counts.pressure) * perPressure)
    }

    /// The bound for a file whose content is `raw` bytes before compression: deflate's
    /// expansion and the overhead added.
    public static func bytes(raw: Int64) -> Int64 {
        raw + raw / 10_000 + overhead
    }

    /// Bytes of one event in the file, at most: its tag, timestamp, type and value.
    public static func event(valueBytes: Int) -> Int64 { 32 + Int64(valueBytes) }
}
