import Foundation
import GRDB

/// The upload state of one measurement, as stored by migration "v2: upload state".
public struct UploadRecord: Sendable, Equatable, Codable {
    /// Where an upload stands.
    public enum Status: String, Sendable, Codable, CaseIterable {
        /// Not tried yet (also the state of a measurement without a row).
        case pending
        /// A session is open, or was when the uploader stopped; `--resume` continues it.
        case uploading
        /// The collector has it (201, 200 to a status query, or 409).
        case uploaded
        /// The collector does not want it (412 or fewer than two locations); not retried.
        case skipped
        /// A hard failure; kept locally, retried by a later `capture upload`.
        case failed
    }

    public var measurement: Int64
    public var status: Status
    /// Why it was skipped or failed.
    public var reason: String?
    /// The collector's session URL (`Location`), used verbatim.
    public var sessionURL: String?
    /// The transfer file's size in bytes.
    public var totalLength: Int64?
    /// The transfer file's SHA-256, lower-case hex. A different hash voids the session.
    public var fileSHA256: String?
    /// Bytes the collector has confirmed receiving.
    public var acknowledged: Int64
    /// Unix ms of the first attempt.
    public var createdAt: Int64
    /// Unix ms of the last change.
    public var updatedAt: Int64
    /// Unix ms of success.
    public var uploadedAt: Int64?

    /// A pending record for a measurement that no upload has touched.
    public static func pending(_ measurement: Int64) -> UploadRecord {
        UploadRecord(
            measurement: measurement, status: .pending, reason: nil, sessionURL: nil, totalLength: nil,
            fileSHA256: nil, acknowledged: 0, createdAt: 0, updatedAt: 0, uploadedAt: nil)
    }
}

extension Store {
    /// The upload state of a measurement (``UploadRecord/pending(_:)`` if never tried).
    public func upload(of id: Int64) throws(StoreError) -> UploadRecord {
        try read { db in try Self.uploadRecord(db, id) } ?? .pending(id)
    }

    /// The upload states of all measurements that have one, by measurement id.
    public func uploads() throws(StoreError) -> [Int64: UploadRecord] {
        try read { db in
            var result: [Int64: UploadRecord] = [:]
            for row in try Row.fetchAll(db, sql: Self.uploadColumns) {
                let record = Self.uploadRecord(row)
                result[record.measurement] = record
            }
            return result
        }
    }

    /// Records that an upload of `total` bytes hashing to `sha256` begins, with the session
    /// URL if one is already open. Written before the first byte is sent. A nil `sha256` (a file
    /// still being hashed) leaves the session unmatched to any file until ``recordUploadHash``.
    public func beginUpload(
        of id: Int64, sessionURL: String?, totalLength: Int64, sha256: String?, acknowledged: Int64 = 0
    ) throws(StoreError) {
        let now = nowMs()
        try write { db in
            try db.execute(
                sql: """
                    INSERT INTO upload (measurement_id, status, reason, session_url, total_length, file_sha256,
                        acknowledged, created_at, updated_at)
                    VALUES (?1, 'uploading', NULL, ?2, ?3, ?4, ?5, ?6, ?6)
                    ON CONFLICT (measurement_id) DO UPDATE SET status = 'uploading', reason = NULL,
                        session_url = ?2, total_length = ?3, file_sha256 = ?4, acknowledged = ?5, updated_at = ?6
                    """, arguments: [id, sessionURL, totalLength, sha256, acknowledged, now])
        }
    }

    /// Records the hash of the file an upload of `totalLength` bytes sends, once it is known
    /// (begun with none: ``beginUpload(of:sessionURL:totalLength:sha256:acknowledged:)``).
    /// Changes nothing if the upload has a hash or another length by now.
    public func recordUploadHash(of id: Int64, sha256: String, totalLength: Int64) throws(StoreError) {
        try write { db in
            try db.execute(
                sql: """
                    UPDATE upload SET file_sha256 = ? WHERE measurement_id = ? AND file_sha256 IS NULL
                        AND total_length = ?
                    """, arguments: [sha256, id, totalLength])
        }
    }

    /// Records how many bytes the collector has confirmed.
    public func acknowledgeUpload(of id: Int64, bytes: Int64) throws(StoreError) {
        try write { db in
            try db.execute(
                sql: "UPDATE upload SET acknowledged = ?, updated_at = ? WHERE measurement_id = ?",
                arguments: [bytes, nowMs(), id])
        }
    }

    /// Records how an upload ended. Success and skips close the session; a failure keeps the
    /// file hash but forgets the session.
    public func finishUpload(of id: Int64, status: UploadRecord.Status, reason: String? = nil) throws(StoreError) {
        let now = nowMs()
        try write { db in
            try db.execute(
                sql: """
                    INSERT INTO upload (measurement_id, status, reason, acknowledged, created_at, updated_at, uploaded_at)
                    VALUES (?1, ?2, ?3, 0, ?4, ?4, ?5)
                    ON CONFLICT (measurement_id) DO UPDATE SET status = ?2, reason = ?3, updated_at = ?4,
                        uploaded_at = ?5, session_url = CASE WHEN ?2 = 'uploading' THEN session_url ELSE NULL END,
                        acknowledged = CASE WHEN ?2 = 'uploaded' THEN COALESCE(total_length, acknowledged)
                            ELSE acknowledged END
                    """,
                arguments: [id, status.rawValue, reason, now, status == .uploaded ? now : nil])
        }
    }

    private static let uploadColumns = """
        SELECT measurement_id, status, reason, session_url, total_length, file_sha256, acknowledged,
            created_at, updated_at, uploaded_at FROM upload
        """

    private static func uploadRecord(_ db: Database, _ id: Int64) throws -> UploadRecord? {
        try Row.fetchOne(db, sql: uploadColumns + " WHERE measurement_id = ?", arguments: [id]).map(uploadRecord)
    }

    /// The `upload` table's columns; those of an upload's state are the `attachment` table's too.
    enum UploadColumns {
        static let measurement = Column("measurement_id")
        static let status = Column("status")
        static let reason = Column("reason")
        static let sessionURL = Column("session_url")
        static let totalLength = Column("total_length")
        static let fileSHA256 = Column("file_sha256")
        static let acknowledged = Column("acknowledged")
        static let createdAt = Column("created_at")
        static let updatedAt = Column("updated_at")
        static let uploadedAt = Column("uploaded_at")
    }

    private static func uploadRecord(_ row: Row) -> UploadRecord {
        UploadRecord(
            measurement: row[UploadColumns.measurement],
            status: UploadRecord.Status(rawValue: row[UploadColumns.status]) ?? .pending, reason: row[UploadColumns.reason],
            sessionURL: row[UploadColumns.sessionURL], totalLength: row[UploadColumns.totalLength],
            fileSHA256: row[UploadColumns.fileSHA256], acknowledged: row[UploadColumns.acknowledged],
            createdAt: row[UploadColumns.createdAt], updatedAt: row[UploadColumns.updatedAt],
            uploadedAt: row[UploadColumns.uploadedAt])
    }

    func nowMs() -> Int64 { clock() }

    /// The wall clock, Unix ms: what a store stamps its uploads with unless told otherwise.
    public static func wallClock() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }
}
