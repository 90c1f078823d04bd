public import CaptureCore

/// The count and sizes of the stored batches of one sensor, known before they are streamed.
///
/// A transfer file writes the length of field 18/19/20 before its content, so the writer needs the
/// exact size up front. Each batch takes `1 + varintSize(bodyLength) + bodyLength` bytes inside the
/// field; ``add(bodyByteCount:)`` accounts for that. A store can compute the summary cheaply from
/// the body lengths alone, without reading bodies: either feed `SELECT length(body) …` through
/// ``add(bodyByteCount:)``, or let SQLite add it up and use ``init(batchCount:bodyByteCount:fieldContentByteCount:)``:
///
/// ```sql
/// SELECT count(*), sum(length(body)),
///        sum(1 + length(body) + CASE WHEN length(body) < 128 THEN 1
///                                    WHEN length(body) < 16384 THEN 2
///                                    WHEN length(body) < 2097152 THEN 3 ELSE 4 END)
/// FROM batch WHERE measurement = ? AND sensor = ?
/// ```
public struct CyfaceBatchSummary: Sendable, Equatable, Hashable {
    /// The number of batches.
    public private(set) var batchCount = 0
    /// The sum of the batch body lengths.
    public private(set) var bodyByteCount = 0
    /// The length of the `XxxBinary` message: every body plus its tag and length prefix.
    public private(set) var fieldContentByteCount = 0

    /// An empty summary.
    public init() {}

    /// A summary computed elsewhere (for example by the SQL query above). ``TransferFileWriter``
    /// checks all three numbers against the bodies it streams.
    public init(batchCount: Int, bodyByteCount: Int, fieldContentByteCount: Int) {
        self.batchCount = batchCount
        self.bodyByteCount = bodyByteCount
        self.fieldContentByteCount = fieldContentByteCount
    }

    /// The summary of batches with the given body lengths.
    public init(bodyByteCounts: some Sequence<Int>) {
        for count in bodyByteCounts { add(bodyByteCount: count) }
    }

    /// Accounts for one more batch whose body has `bodyByteCount` bytes.
    public mutating func add(bodyByteCount: Int) {
        batchCount += 1
        self.bodyByteCount += bodyByteCount
        fieldContentByteCount += Self.framedSize(bodyByteCount: bodyByteCount)
    }

    /// The bytes one batch takes inside an `XxxBinary` message: tag `0A`, length varint, body.
    public static func framedSize(bodyByteCount: Int) -> Int {
        ProtobufWriter.lengthDelimitedFieldSize(1, length: bodyByteCount)
    }
}

/// The already-encoded batches of one sensor, supplied one at a time to ``TransferFileWriter``.
///
/// `nextBody` returns the body of the next batch (as produced by ``CyfaceBatch/encode(_:sensor:)``)
/// or `nil` at the end. It may read from a database cursor, so only one batch needs to be in memory
/// at a time. The bodies it returns must match `summary` exactly.
public struct CyfaceSensorBatches {
    /// The sensor; decides the field (18, 19 or 20).
    public var sensor: MotionSensor
    /// The count and sizes of the batches, computed beforehand.
    public var summary: CyfaceBatchSummary
    /// Returns the next batch body, or `nil` when there are no more.
    public var nextBody: () throws -> [UInt8]?

    /// Creates a batch source.
    public init(sensor: MotionSensor, summary: CyfaceBatchSummary, nextBody: @escaping () throws -> [UInt8]?) {
        self.sensor = sensor
        self.summary = summary
        self.nextBody = nextBody
    }

    /// A source over bodies already in memory (tests, small measurements).
    public init(sensor: MotionSensor, bodies: [[UInt8]]) {
        var iterator = bodies.makeIterator()
        self.init(sensor: sensor, summary: CyfaceBatchSummary(bodyByteCounts: bodies.map(\.count))) {
            iterator.next()
        }
    }
}
