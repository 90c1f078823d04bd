import CaptureRecorder
import CaptureStorage
import CaptureTestSupport
import Foundation
import Testing

/// `capture import` of a file that is not a Cyface transfer file but one `replay` reads says what
/// it is, instead of the decoder's complaint (issue 32, item 8); anything else keeps the
/// decoder's words. Nothing is stored either way.
@Suite struct FileImportTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("capture-import-\(UUID().uuidString)").path

    func written(_ name: String, _ text: String) throws -> String {
        let path = directory + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func aRecordingReplayReadsIsNamedAndNothingIsStored() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try Store(directory: directory)
        let files: [(String, String)] = [
            (Repository.fixture("export/ride.trace"), "a capture trace"),
            (Repository.fixture("golden/export/ride.gpx"), "a GPX track"),
            (Repository.fixture("golden/export/ride.geojson"), "a GeoJSON track"),
            (Repository.fixture("golden/export/ride.locations.csv"), "a CSV table of locations"),
            (
                try written("ride.nmea", "$GPGGA,092750.000,5321.6802,N,00630.3372,W,1,8,1.03,61.7,M,55.2,M,,*76\r\n"),
                "a GNSS receiver log (NMEA or u-blox UBX)"
            ),
            (
                try written("ride.json", #"{"class":"TPV","mode":3,"time":"2026-11-27T10:00:00.000Z","lat":51.05,"lon":13.73}"# + "\n"),
                "a gpsd JSON log"
            ),
        ]
        for (path, looksLike) in files {
            #expect {
                _ = try FileImport.transferFile(at: path, into: store)
            } throws: { error in
                guard let error = error as? ImportFileError, case .notTransferFile = error.fault else { return false }
                return error.looksLike == looksLike
                    && error.description == "\(path) is \(looksLike), not a Cyface v3 transfer file; nothing imported"
            }
        }
        #expect(try store.measurements().isEmpty)
    }

    @Test func anythingElseKeepsTheDecodersWords() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try Store(directory: directory)
        let garbage = try written("garbage.bin", "\u{01}\u{02}not a ride, not a trace, nothing capture reads\n")
        #expect {
            _ = try FileImport.transferFile(at: garbage, into: store)
        } throws: { error in
            guard let error = error as? ImportFileError, case .notTransferFile = error.fault else { return false }
            return error.looksLike == nil && error.description.hasPrefix("\(garbage): not a Cyface v3 transfer file: ")
        }
        // Issue 46: a text file was refused with "corrupt raw deflate data".
        let text = try written("notes.txt", "not a ride, not a trace, nothing capture reads\n")
        do {
            _ = try FileImport.transferFile(at: text, into: store)
            Issue.record("a text file was imported")
        } catch {
            #expect(error.description == "\(text) is a text file, not a Cyface v3 transfer file (those are binary, .ccyf); nothing imported")
        }
    }
}
