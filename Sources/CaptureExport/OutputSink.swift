import CaptureStorage
import Foundation

/// Standard output, or a file written atomically (``AtomicFile``); output is buffered in
/// 64 KiB pieces.
///
/// A file appears at its path only on ``commit()``: if the sink is discarded or dropped first,
/// or anything fails, the temporary file is removed and an existing file at the path is untouched.
///
/// ```swift
/// let sink = try OutputSink(.file("ride.gpx"))
/// try sink.write("<gpx>…</gpx>\n")
/// try sink.commit()
/// ```
package final class OutputSink {
    /// The file, `nil` for standard output.
    private let file: AtomicFile?
    private var buffer: [UInt8] = []
    /// The size of the pieces handed to the file or standard output.
    static let pieceSize = 1 << 16

    /// Opens `destination`; for a file, creates its temporary file next to it.
    ///
    /// - Throws: ``ExportError/cannotWrite(path:reason:)`` when the file's directory is missing
    ///   or not writable.
    package init(_ destination: ExportDestination) throws(ExportError) {
        switch destination {
        case .standardOutput:
            file = nil
        case .file(let path):
            do {
                file = try AtomicFile(path: path)
            } catch {
                throw ExportError(error)
            }
        }
        buffer.reserveCapacity(Self.pieceSize)
    }

    /// Appends `text` as UTF-8.
    package func write(_ text: String) throws(ExportError) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= Self.pieceSize { try flush() }
    }

    /// Appends `bytes`.
    package func write(_ bytes: [UInt8]) throws(ExportError) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.pieceSize { try flush() }
    }

    private func flush() throws(ExportError) {
        guard !buffer.isEmpty else { return }
        do {
            if let file {
                try file.append(buffer)
            } else {
                try FileHandle.standardOutput.write(contentsOf: buffer)
            }
        } catch {
            file?.discard()
            throw file == nil ? .cannotWrite(path: "standard output", reason: "\(error)") : ExportError(error)
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes and, for a file, renames it into place.
    package func commit() throws(ExportError) {
        try flush()
        do {
            try file?.commit()
        } catch {
            throw ExportError(error)
        }
    }

    /// Drops what was written: a file's temporary file is removed (dropping the sink does the same).
    package func discard() {
        buffer.removeAll()
        file?.discard()
    }

    /// Writes into a sink for `destination` with `body` and commits; on any failure the sink is
    /// discarded and nothing is left at a file destination.
    static func writing(to destination: ExportDestination, _ body: (OutputSink) throws -> Void) throws(ExportError) {
        let sink = try OutputSink(destination)
        do {
            try body(sink)
            try sink.commit()
        } catch {
            sink.discard()
            throw ExportError(error)
        }
    }
}
