import CaptureCore
package import CaptureStorage
import Foundation

/// The Cyface v3 transfer file, byte for byte what an upload sends (raw deflate of `00 03` +
/// protobuf). Only finished measurements; the file is the store's cached one
/// (``Store/transferFile(for:directory:privacyZones:)``), made on first use. It carries every
/// fix (`--clean` does not apply) except those the privacy zones hide.
package struct CyfaceExporter: MeasurementExporter {
    package let name = "cyface"
    package let summary = """
        the Cyface v3 transfer file, byte for byte what an upload sends (raw deflate of 00 03 + \
        protobuf). The file is cached in <data dir>/transfer/ and reused until the measurement \
        changes. It always carries every fix, so --clean does not apply.
        """
    package let filtersFixes = false

    /// The Cyface transfer-file exporter.
    package init() {}

    package func export(
        _ id: Int64, from store: Store, options: ExportOptions, to destination: ExportDestination
    ) throws(ExportError) {
        _ = try finishedRecord(id, in: store)
        let file = try exporting {
            try store.transferFile(for: id, directory: options.dataDirectory, privacyZones: options.privacyZones)
        }
        try OutputSink.writing(to: destination) { sink in
            guard let handle = FileHandle(forReadingAtPath: file.path) else { throw ExportError.cannotRead(path: file.path) }
            defer { try? handle.close() }
            while true {
                let chunk: Data
                do {
                    guard let read = try handle.read(upToCount: OutputSink.pieceSize), !read.isEmpty else { break }
                    chunk = read
                } catch {
                    throw ExportError.cannotRead(path: file.path)
                }
                try sink.write([UInt8](chunk))
            }
        }
    }
}
