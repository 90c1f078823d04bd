public import CaptureCore
public import CaptureTransfer
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a transfer file at a path could not be imported: which file, and what is wrong with it.
/// Nothing of the file was stored.
public struct ImportFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong.
    public enum Fault: Sendable, Equatable {
        /// Nothing is at the path, or a directory is.
        case missing
        /// A device, FIFO or socket: not read at all, as it might never end.
        case notRegularFile
        /// Larger than any transfer file can be (``TransferFileDecoder/maximumDecompressedSize``).
        case tooLarge(bytes: Int64)
        /// The file exists but cannot be read.
        case unreadable
        /// Not a Cyface v3 transfer file: truncated, corrupt, another version (the decoder says
        /// what and at which byte offset).
        case notTransferFile(CyfaceError)
        /// A well-formed file whose content cannot become a measurement (inconsistent lifecycle
        /// events, a position not on Earth, nothing at all).
        case invalidContent(ImportError)
        /// The same ride (the same content, whatever its packing) was imported before, as this
        /// measurement; refused with ``ImportDuplicates/refuse``.
        case alreadyImported(measurement: Int64)
        /// A value the store cannot keep in the transfer format's encoding.
        case unrepresentable(CyfaceError)
        /// The store failed (disk full, database error).
        case storage(StoreError)
    }

    /// The file as given.
    public var path: String
    /// What is wrong with it.
    public var fault: Fault
    /// For ``Fault/notTransferFile(_:)``: what the file is instead, when it is a recording capture
    /// reads in another way ("a GPX track", "a capture trace"); recognised by a caller that knows
    /// those formats (`FileImport` in CaptureRecorder).
    public var looksLike: String?

    /// For ``Fault/notTransferFile(_:)``: whether the file is text (no control characters
    /// besides tabs and line ends), which no transfer file is.
    public var textual = false

    /// Describes a failed import of `path`.
    public init(path: String, fault: Fault, looksLike: String? = nil, textual: Bool = false) {
        self.path = path
        self.fault = fault
        self.looksLike = looksLike
        self.textual = textual
    }

    /// Whether `bytes` (a file's first ones) read as text: UTF-8 (a character cut at the end
    /// aside) without control characters but tab, LF and CR. Compressed or protobuf bytes are
    /// neither, but for a few that may be: at least 16 are needed.
    static func isText(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 16, bytes.allSatisfy({ $0 >= 0x20 && $0 != 0x7F || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) else { return false }
        return (0...3).contains { cut in String(validating: bytes.dropLast(cut), as: UTF8.self) != nil }
    }

    /// One line: the file and what is wrong with it.
    public var description: String {
        switch fault {
        case .missing: "no such file: \(path)"
        case .notRegularFile: "\(path) is not a regular file"
        case .tooLarge(let bytes): "\(path): \(bytes) bytes is larger than any transfer file; nothing imported"
        case .unreadable: "cannot read \(path)"
        case .notTransferFile(let error):
            if let looksLike { "\(path) is \(looksLike), not a Cyface v3 transfer file; nothing imported" } else if textual {
                // A decoder's complaint ("corrupt raw deflate data") says nothing about a text file.
                "\(path) is a text file, not a Cyface v3 transfer file (those are binary, .ccyf); nothing imported"
            } else {
                "\(path): not a Cyface v3 transfer file: \(error)"
            }
        case .invalidContent(let error): "\(path): \(error)"
        case .alreadyImported(let id): "\(path) is already stored as measurement \(id); nothing imported"
        case .unrepresentable(let error): "\(path): \(error)"
        case .storage(let error): error.description
        }
    }
}

extension Store {
    /// Imports the Cyface transfer file at `path` as one new finished measurement (see
    /// ``importMeasurement(_:sources:duplicates:)``), recording `import:<path>` as its sources.
    ///
    /// A file whose content was imported before (compared by ``CyfaceTransferFile/contentDigest``,
    /// as the file carries no device or measurement id) is refused with
    /// ``ImportFileError/Fault/alreadyImported(measurement:)`` unless `duplicates` is
    /// ``ImportDuplicates/importAgain``.
    ///
    /// The path is checked before anything is read: a missing file or a directory, a device or
    /// FIFO (`/dev/zero` would never end), or a file larger than any transfer file is refused
    /// without reading it. Then the file is read whole, decoded and stored in one transaction.
    ///
    /// ```swift
    /// let summary = try store.importTransferFile(at: "ride.ccyf")   // summary.measurement is the new id
    /// ```
    ///
    /// - Throws: ``ImportFileError`` naming the file and the fault; nothing is stored then.
    public func importTransferFile(
        at path: String, duplicates: ImportDuplicates = .refuse
    ) throws(ImportFileError) -> ImportSummary {
        func fail(_ fault: ImportFileError.Fault) -> ImportFileError { ImportFileError(path: path, fault: fault) }
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT != S_IFDIR else { throw fail(.missing) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw fail(.notRegularFile) }
        guard info.st_size <= TransferFileDecoder.maximumDecompressedSize else { throw fail(.tooLarge(bytes: Int64(info.st_size))) }
        guard let bytes = FileManager.default.contents(atPath: path) else { throw fail(.unreadable) }
        let decoded: CyfaceTransferFile
        do {
            decoded = try TransferFileDecoder.decode([UInt8](bytes))
        } catch {
            var failure = fail(.notTransferFile(error))
            failure.textual = ImportFileError.isText([UInt8](bytes.prefix(65_536)))
            throw failure
        }
        do {
            return try importMeasurement(decoded, sources: "import:\(path)", duplicates: duplicates)
        } catch ImportError.alreadyImported(let id) {
            throw fail(.alreadyImported(measurement: id))
        } catch let error as ImportError {
            throw fail(.invalidContent(error))
        } catch let error as CyfaceError {
            throw fail(.unrepresentable(error))
        } catch let error as StoreError {
            throw fail(.storage(error))
        } catch {
            throw fail(.storage(.database("\(error)")))
        }
    }
}
