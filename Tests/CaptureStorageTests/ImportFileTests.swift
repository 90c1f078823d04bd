import CaptureCore
import CaptureTransfer
import Foundation
import Testing

@testable import CaptureStorage

/// `Store.importTransferFile(at:)`: the checks on the path, then decode and import, each fault
/// typed and naming the file. (The CLI's wording and exit codes: BadTransferFileTests.)
@Suite struct ImportFileTests {
    let temporary = TemporaryDirectory()
    var directory: String { temporary.path }
    let store: Store

    init() throws {
        store = try Store(directory: temporary.path + "/data")
    }

    /// A finished two-fix measurement serialised by the store: a valid transfer file.
    func validFile() throws -> String {
        var engine = Recording()
        let id = try store.begin(try engine.apply(.start(.bicycle), at: 1_000), sources: "test")
        _ = engine.ingest(.fix(Fix(timestamp: 1_100, latitude: 51, longitude: 13, horizontalAccuracy: 5, speed: 4)))
        _ = engine.ingest(.fix(Fix(timestamp: 2_100, latitude: 51.0001, longitude: 13, horizontalAccuracy: 5, speed: 4)))
        try store.commit(try engine.apply(.stop, at: 3_000), to: id)
        return try store.transferFile(for: id, directory: directory + "/data").path
    }

    func fault(of path: String) -> ImportFileError.Fault? {
        do {
            _ = try store.importTransferFile(at: path)
            return nil
        } catch {
            #expect(error.path == path)
            return error.fault
        }
    }

    @Test func aValidFileBecomesAFinishedMeasurement() throws {
        let path = try validFile()
        // The file is measurement 1's: a copy on purpose.
        let summary = try store.importTransferFile(at: path, duplicates: .importAgain)
        #expect(summary.measurement == 2 && summary.locations == 2 && summary.tracks == 1)
        let record = try store.measurement(2)
        #expect(record.status == .finished && record.modality == "BICYCLE" && record.sources == "import:\(path)")
    }

    @Test func pathsThatAreNoFileAreRefusedUnread() throws {
        #expect(fault(of: directory + "/missing.ccyf") == .missing)
        try FileManager.default.createDirectory(atPath: directory + "/dir", withIntermediateDirectories: true)
        #expect(fault(of: directory + "/dir") == .missing)
        #expect(fault(of: "/dev/zero") == .notRegularFile)
        #expect(ImportFileError(path: "/dev/zero", fault: .notRegularFile).description == "/dev/zero is not a regular file")
        #expect(ImportFileError(path: "/x", fault: .missing).description == "no such file: /x")
        #expect(try store.measurements().isEmpty)
    }

    @Test func aFileLargerThanAnyTransferFileIsNotRead() throws {
        let path = directory + "/huge.ccyf"
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        // A sparse file: its size without its blocks.
        try handle.truncate(atOffset: UInt64(TransferFileDecoder.maximumDecompressedSize) + 1)
        try handle.close()
        let size = Int64(TransferFileDecoder.maximumDecompressedSize) + 1
        #expect(fault(of: path) == .tooLarge(bytes: size))
        #expect(
            ImportFileError(path: path, fault: .tooLarge(bytes: size)).description
                == "\(path): \(size) bytes is larger than any transfer file; nothing imported")
    }

    @Test func damagedAndInvalidFilesNameTheirFault() throws {
        let good = try #require(FileManager.default.contents(atPath: try validFile()))
        let path = directory + "/bad.ccyf"
        try good.prefix(good.count / 2).write(to: URL(fileURLWithPath: path))
        guard case .notTransferFile(let error) = fault(of: path) else {
            Issue.record("a truncated file is not a transfer file")
            return
        }
        #expect(ImportFileError(path: path, fault: .notTransferFile(error)).description.hasPrefix("\(path): not a Cyface v3 transfer file: "))
        // Well-formed, but a RESUME without a PAUSE.
        let resume = CyfaceMeasurement(
            fixes: [Fix(timestamp: 1_000, latitude: 51, longitude: 13)],
            events: [Event(timestamp: 1_000, type: .lifecycleStart), Event(timestamp: 2_000, type: .lifecycleResume)])
        try Data(try TransferFileWriter.serialize(resume)).write(to: URL(fileURLWithPath: path))
        guard case .invalidContent(let invalid) = fault(of: path) else {
            Issue.record("a RESUME without a PAUSE is invalid content")
            return
        }
        #expect(
            ImportFileError(path: path, fault: .invalidContent(invalid)).description
                == "\(path): invalid lifecycle events: LIFECYCLE_RESUME at 2000 without a preceding LIFECYCLE_PAUSE")
        #expect(try store.measurements().count == 1, "only the measurement the valid file came from")
    }

    @Test func theSameRideIsRefusedWhateverItsPackingUnlessImportedAgain() throws {
        // A copy: the cached file goes with its measurement.
        let path = directory + "/ride.ccyf"
        try FileManager.default.copyItem(atPath: try validFile(), toPath: path)
        // Measurement 1, recorded here, coming back as its export: recognised by its content.
        #expect(fault(of: path) == .alreadyImported(measurement: 1))
        #expect(try store.measurements().count == 1)
        #expect(try store.importTransferFile(at: path, duplicates: .importAgain).measurement == 2)
        #expect(fault(of: path) == .alreadyImported(measurement: 1))
        #expect(
            ImportFileError(path: path, fault: .alreadyImported(measurement: 2)).description
                == "\(path) is already stored as measurement 2; nothing imported")
        // The same content repacked: uncompressed, in batches of one, is the same ride.
        let decoded = try TransferFileDecoder.decode([UInt8](try #require(FileManager.default.contents(atPath: path))))
        let repacked = directory + "/repacked.ccyf"
        let measurement = CyfaceMeasurement(
            fixes: decoded.fixes, samples: Dictionary(uniqueKeysWithValues: MotionSensor.allCases.map { ($0, decoded.samples(of: $0)) }),
            events: decoded.events)
        try Data(try TransferFileWriter.serialize(measurement, batchSize: 1)).write(to: URL(fileURLWithPath: repacked))
        #expect(decoded.contentDigest == (try TransferFileDecoder.decode(try TransferFileWriter.serialize(measurement))).contentDigest)
        #expect(fault(of: repacked) == .alreadyImported(measurement: 1))
        #expect(try store.measurements().count == 2, "a refused import stored nothing")
        // On purpose: a new measurement; refusals then name the original.
        #expect(try store.importTransferFile(at: path, duplicates: .importAgain).measurement == 3)
        #expect(fault(of: repacked) == .alreadyImported(measurement: 1))
        // Without the recorded ride, the first imported copy is named.
        try store.deleteMeasurement(1, directory: directory + "/data")
        #expect(fault(of: repacked) == .alreadyImported(measurement: 2))
        // Other content is another ride.
        let other = CyfaceMeasurement(fixes: [Fix(timestamp: 5_000, latitude: 52, longitude: 13)])
        let otherPath = directory + "/other.ccyf"
        try Data(try TransferFileWriter.serialize(other)).write(to: URL(fileURLWithPath: otherPath))
        #expect(try store.importTransferFile(at: otherPath).measurement == 4)
        // Once its copies are deleted, the ride may come in again.
        try store.deleteMeasurement(2, directory: directory + "/data")
        try store.deleteMeasurement(3, directory: directory + "/data")
        #expect(try store.importTransferFile(at: path).measurement == 5)
    }
}
