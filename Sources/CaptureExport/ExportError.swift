package import CaptureStorage

/// Why an export failed. Nothing is left at a file destination then.
package enum ExportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The store failed, or has no such measurement.
    case store(StoreError)
    /// The Cyface transfer file could not be made (a measurement not finished, a value the format
    /// cannot hold, its cache file not writable).
    case transfer(TransferError)
    /// The output directory (CSV) could not be created.
    case cannotCreateDirectory(path: String, reason: String)
    /// An output file or standard output could not be written.
    case cannotWrite(path: String, reason: String)
    /// A file to copy (the cached transfer file) could not be read.
    case cannotRead(path: String)
    /// A format of several files (CSV: one per table) was given a path that names a single file
    /// of that kind (`x.csv`); nothing was created.
    case directoryExpected(path: String, tables: Int)
    /// A format that is a database file (GeoPackage) was asked for on standard output.
    case fileRequired(format: String)

    /// One line: what failed.
    package var description: String {
        switch self {
        case .store(let error): error.description
        case .transfer(let error): error.description
        case .cannotCreateDirectory(let path, let reason): "cannot create the directory \(path): \(reason)"
        case .cannotWrite(let path, let reason): "cannot write \(path): \(reason)"
        case .cannotRead(let path): "cannot read \(path)"
        case .directoryExpected(let path, let tables):
            "a CSV export writes \(tables) tables into a directory, and \(path) names a .csv file; nothing was written"
        case .fileRequired(let format): "a \(format) export is a database file and cannot go to standard output"
        }
    }

    /// Wraps what an exporter's body threw.
    init(_ error: any Error) {
        switch error {
        case let error as ExportError: self = error
        case let error as StoreError: self = .store(error)
        case let error as TransferError:
            // AtomicFile reports its I/O as TransferError.io; for an export that is a write error.
            if case .io(let path, let reason) = error {
                self = .cannotWrite(path: path, reason: reason)
            } else if case .store(let error) = error {
                self = .store(error)
            } else {
                self = .transfer(error)
            }
        default: self = .cannotWrite(path: "the output", reason: "\(error)")
        }
    }
}

extension MeasurementExporter {
    /// Runs `body` with typed errors: everything it throws becomes an ``ExportError``.
    func exporting<T>(_ body: () throws -> T) throws(ExportError) -> T {
        do {
            return try body()
        } catch {
            throw ExportError(error)
        }
    }
}
