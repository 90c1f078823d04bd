package import CaptureStorage
import CaptureSensors
import Foundation

/// `capture import`: a Cyface transfer file becomes a measurement; a file that is not one but a
/// recording capture reads in another way (a GPX track, a receiver log, a capture trace) is
/// refused with what it looks like, so that the user is pointed to the command that reads it
/// rather than shown a decoder's complaint ("corrupt raw deflate data"). It lives here because
/// the recorder's library knows both the store and the formats `replay` reads.
package enum FileImport {
    /// Imports the transfer file at `path` into `store`
    /// (``CaptureStorage/Store/importTransferFile(at:duplicates:)``).
    ///
    /// - Throws: ``CaptureStorage/ImportFileError``; for a file `replay` reads, with its
    ///   ``CaptureStorage/ImportFileError/looksLike`` set. Nothing is stored then.
    package static func transferFile(
        at path: String, into store: Store, duplicates: ImportDuplicates = .refuse
    ) throws(ImportFileError) -> ImportSummary {
        do {
            return try store.importTransferFile(at: path, duplicates: duplicates)
        } catch let error {
            guard case .notTransferFile = error.fault, let looksLike = replayable(path) else { throw error }
            throw ImportFileError(path: path, fault: error.fault, looksLike: looksLike, textual: error.textual)
        }
    }

    /// What the file at `path` is, in words, if `replay` reads it; nil for anything else.
    static func replayable(_ path: String) -> String? {
        guard let input = try? TraceInput(path: path) else { return nil }
        return switch input.format {
        case .native: "a capture trace"
        case .nmea: "a GNSS receiver log (NMEA or u-blox UBX)"
        case .gpsdJSON: "a gpsd JSON log"
        case .gpx: "a GPX track"
        case .geojson: "a GeoJSON track"
        case .csv: "a CSV table of locations"
        }
    }
}
