import CaptureCore
import CaptureTransfer
import Foundation
import GRDB

extension Store {
    /// A finished measurement recorded in this store (not imported) whose transfer file holds
    /// exactly `file`'s content (``CyfaceTransferFile/contentDigest`` `digest`), if any: the ride
    /// a `capture export --format cyface` of this device wrote, coming back.
    ///
    /// A transfer file carries no device or measurement id, so the ride is recognised by its
    /// content. Only measurements with the same number of fixes and accelerometer samples are
    /// candidates (a query on the counts); each candidate's transfer file (the cached one,
    /// made if needed, without privacy zones) is decoded and its digest compared. A file
    /// exported with privacy zones has fewer fixes than the stored ride and is not recognised.
    func recordedMeasurement(matching file: CyfaceTransferFile, digest: String) throws -> Int64? {
        let candidates = try read { db in
            try Int64.fetchAll(
                db,
                sql: """
                    SELECT m.id FROM measurement m
                    WHERE m.status = 'finished'
                      AND NOT EXISTS (SELECT 1 FROM measurement_origin o WHERE o.measurement_id = m.id)
                      AND (SELECT COUNT(*) FROM location l WHERE l.measurement_id = m.id) = ?
                      AND (SELECT COALESCE(SUM(count), 0) FROM sensor_batch b
                           WHERE b.measurement_id = m.id AND b.sensor = ?) = ?
                    ORDER BY m.id
                    """,
                arguments: [file.fixes.count, MotionSensor.accelerometer.rawValue, file.samples(of: .accelerometer).count])
        }
        for id in candidates {
            let made = try transferFile(for: id, directory: directory)
            guard let bytes = FileManager.default.contents(atPath: made.path) else { continue }
            if try TransferFileDecoder.decode([UInt8](bytes)).contentDigest == digest { return id }
        }
        return nil
    }
}
