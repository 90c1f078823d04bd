public import CaptureCore
public import CaptureTransfer

/// A flush with its motion samples already encoded as the Cyface batch messages the store keeps
/// (one row per sensor per flush, at most ``maximumBatch`` samples a row). Encoding needs no
/// database, so it happens before the write transaction, on whichever thread builds the flush.
public struct EncodedFlush: Sendable {
    /// One `sensor_batch` row.
    struct Batch: Sendable {
        var sensor: MotionSensor
        var firstTimestamp: Int64
        var lastTimestamp: Int64
        var count: Int
        var data: [UInt8]
    }

    /// The largest batch stored in one row; the Android SDK's limit per message.
    public static let maximumBatch = CyfaceBatch.maximumSampleCount

    /// The flush without its motion samples (they are in `batches`).
    public private(set) var flush: Flush
    private(set) var batches: [Batch] = []

    public init(_ flush: Flush) throws(StoreError) {
        for sensor in MotionSensor.allCases {
            let samples = flush.motion[sensor]
            var start = 0
            while start < samples.count {
                let end = min(start + Self.maximumBatch, samples.count)
                let chunk = samples[start..<end]
                let data: [UInt8]
                do {
                    data = try CyfaceBatch.encode(chunk, sensor: sensor)
                } catch {
                    throw .database("cannot encode \(sensor) samples: \(error)")
                }
                batches.append(
                    Batch(
                        sensor: sensor, firstTimestamp: chunk[chunk.startIndex].timestamp,
                        lastTimestamp: chunk[chunk.endIndex - 1].timestamp, count: chunk.count, data: data))
                start = end
            }
        }
        self.flush = flush
        self.flush.motion = MotionBuffers()
    }

    /// A flush of samples read back from the flush log: no events, so its lifecycle state is
    /// never written (``Store`` writes the state only with events) until ``carry(_:state:modality:)``
    /// gives it those of a record with events.
    init(track: Int, batches: [Batch], fixes: [Fix], pressures: [PressureSample]) {
        flush = Flush(
            track: track, fixes: fixes, pressures: pressures, state: .capturing(track: track), modality: nil)
        self.batches = batches
    }

    /// Gives a flush read back from the flush log the events its record carried, with the
    /// lifecycle state and modality once they are applied.
    mutating func carry(_ events: [Event], state: Lifecycle.State, modality: Modality?) {
        flush.events = events
        flush.state = state
        flush.modality = modality
    }

    /// About how many bytes of samples it carries: what ``StagedCommits`` weighs.
    public var weight: Int {
        batches.reduce(0) { $0 + $1.data.count } + flush.fixes.count * 100 + flush.pressures.count * 16
    }

    /// The latest time it holds (motion batches, fixes, pressure, events), as
    /// ``Store/lastTimestamp(of:)`` reads a stored measurement's; `nil` when it holds nothing.
    public var lastTime: Int64? {
        (batches.map(\.lastTimestamp) + flush.fixes.map(\.timestamp) + flush.pressures.map(\.timestamp)
            + flush.events.map(\.timestamp)).max()
    }

    /// Whether committing it would write nothing.
    public var isEmpty: Bool { batches.isEmpty && flush.isEmpty }
}
