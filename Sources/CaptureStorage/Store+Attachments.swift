import Foundation
import GRDB

/// A file that goes to the collector after its measurement (cyface-protocol.md §2.8): the
/// recorder's log of the measurement, or one a user added with `capture attach`. Its bytes are
/// `<data dir>/attachments/<measurement>/<name>`, sent raw.
public struct AttachmentRecord: Sendable, Equatable, Codable {
    /// The formats the collector takes (Android's `fileFormatVersion` 1 types).
    public enum Format: String, Sendable, Codable, CaseIterable {
        case csv, json, jsonl, jpg

        /// Logs count as `logCount`, images as `imageCount` (§2.3).
        public var isImage: Bool { self == .jpg }
    }

    /// The attachmentId sent to the collector.
    public var id: Int64
    public var measurement: Int64
    public var format: Format
    /// The file name under the measurement's attachment directory.
    public var name: String
    /// Unix ms when it was added.
    public var addedAt: Int64
    /// Where its upload stands (the states of ``UploadRecord/Status``).
    public var status: UploadRecord.Status
    public var reason: String?
    public var sessionURL: String?
    public var totalLength: Int64?
    public var fileSHA256: String?
    public var acknowledged: Int64
    public var uploadedAt: Int64?

    /// Its path under `directory`, the data directory.
    public func path(in directory: String) -> String {
        Store.attachmentDirectory(of: measurement, in: directory) + "/" + name
    }
}

extension Store {
    /// `<directory>/attachments/<measurement>`.
    public static func attachmentDirectory(of measurement: Int64, in directory: String) -> String {
        (directory as NSString).appendingPathComponent("attachments/\(measurement)")
    }

    /// Records an attachment whose file is already in place (or, for the recorder's log, being
    /// written); returns it. A second call with the same name returns the existing one.
    ///
    /// - Throws: ``StoreError/measurementNotFound(_:)`` and other ``StoreError``s.
    @discardableResult
    public func addAttachment(to measurement: Int64, name: String, format: AttachmentRecord.Format) throws(StoreError)
        -> AttachmentRecord
    {
        try write { db in
            guard try Int64.fetchOne(db, sql: "SELECT id FROM measurement WHERE id = ?", arguments: [measurement]) != nil else {
                throw StoreError.measurementNotFound(measurement)
            }
            try db.execute(
                sql: """
                    INSERT INTO attachment (measurement_id, format, name, added_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT (measurement_id, name) DO NOTHING
                    """, arguments: [measurement, format.rawValue, name, nowMs()])
            return try Row.fetchOne(db, sql: Self.attachmentColumns + " WHERE measurement_id = ? AND name = ?", arguments: [measurement, name])
                .map(Self.attachmentRecord)!
        }
    }

    /// The attachments of a measurement, in the order they were added.
    public func attachments(of measurement: Int64) throws(StoreError) -> [AttachmentRecord] {
        try read { db in
            try Row.fetchAll(db, sql: Self.attachmentColumns + " WHERE measurement_id = ? ORDER BY id", arguments: [measurement])
                .map(Self.attachmentRecord)
        }
    }

    /// The measurements with an attachment in one of `statuses`.
    public func measurementsWithAttachments(in statuses: Set<UploadRecord.Status>) throws(StoreError) -> Set<Int64> {
        try read { db in
            let list = statuses.map { "'\($0.rawValue)'" }.joined(separator: ", ")
            guard !list.isEmpty else { return [] }
            return Set(try Int64.fetchAll(db, sql: "SELECT DISTINCT measurement_id FROM attachment WHERE status IN (\(list))"))
        }
    }

    /// Records that the upload of attachment `id` (`total` bytes hashing to `sha256`) begins or
    /// has a new session; written before the first byte is sent.
    public func beginAttachmentUpload(
        _ id: Int64, sessionURL: String?, totalLength: Int64, sha256: String, acknowledged: Int64 = 0
    ) throws(StoreError) {
        try write { db in
            try db.execute(
                sql: """
                    UPDATE attachment SET status = 'uploading', reason = NULL, session_url = ?, total_length = ?,
                        file_sha256 = ?, acknowledged = ? WHERE id = ?
                    """, arguments: [sessionURL, totalLength, sha256, acknowledged, id])
        }
    }

    /// Records how many bytes of attachment `id` the collector has confirmed.
    public func acknowledgeAttachment(_ id: Int64, bytes: Int64) throws(StoreError) {
        try write { db in
            try db.execute(sql: "UPDATE attachment SET acknowledged = ? WHERE id = ?", arguments: [bytes, id])
        }
    }

    /// Records how the upload of attachment `id` ended (as ``finishUpload(of:status:reason:)``).
    public func finishAttachmentUpload(_ id: Int64, status: UploadRecord.Status, reason: String? = nil) throws(StoreError) {
        try write { db in
            try db.execute(
                sql: """
                    UPDATE attachment SET status = ?1, reason = ?2, uploaded_at = ?3,
                        session_url = CASE WHEN ?1 = 'uploading' THEN session_url ELSE NULL END,
                        acknowledged = CASE WHEN ?1 = 'uploaded' THEN COALESCE(total_length, acknowledged) ELSE acknowledged END
                    WHERE id = ?4
                    """, arguments: [status.rawValue, reason, status == .uploaded ? nowMs() : nil, id])
        }
    }

    private static let attachmentColumns = """
        SELECT id, measurement_id, format, name, added_at, status, reason, session_url, total_length, file_sha256,
            acknowledged, uploaded_at FROM attachment
        """

    /// The `attachment` table's own columns; those of the upload's state are ``UploadColumns``.
    private enum AttachmentColumns {
        static let id = Column("id")
        static let format = Column("format")
        static let name = Column("name")
        static let addedAt = Column("added_at")
    }

    private static func attachmentRecord(_ row: Row) -> AttachmentRecord {
        typealias Upload = UploadColumns
        return AttachmentRecord(
            id: row[AttachmentColumns.id], measurement: row[Upload.measurement],
            format: AttachmentRecord.Format(rawValue: row[AttachmentColumns.format]) ?? .csv, name: row[AttachmentColumns.name],
            addedAt: row[AttachmentColumns.addedAt], status: UploadRecord.Status(rawValue: row[Upload.status]) ?? .pending,
            reason: row[Upload.reason], sessionURL: row[Upload.sessionURL], totalLength: row[Upload.totalLength],
            fileSHA256: row[Upload.fileSHA256], acknowledged: row[Upload.acknowledged], uploadedAt: row[Upload.uploadedAt])
    }
}
