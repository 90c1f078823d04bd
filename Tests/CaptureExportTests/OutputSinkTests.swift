import CaptureStorage
import CaptureTestSupport
import Foundation
import Testing

@testable import CaptureExport

/// A file destination appears whole on commit or not at all.
@Suite struct OutputSinkTests {
    let scratch: Scratch
    var directory: String { scratch.path }

    init() throws { scratch = try ExportFixtures.temporaryDirectory("sink") }

    var entries: [String] { (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] }

    @Test func committedFileHasEverythingWritten() throws {
        let path = directory + "/out.txt"
        let sink = try OutputSink(.file(path))
        // More than one 64 KiB piece, so some of it reached the temporary file before commit.
        let line = String(repeating: "x", count: 1000) + "\n"
        for _ in 0..<100 { try sink.write(line) }
        try sink.write([0x41, 0x0A])
        #expect(!FileManager.default.fileExists(atPath: path), "visible before commit")
        #expect(entries.count == 1 && entries[0].hasPrefix(".out.txt."), "\(entries)")
        try sink.commit()
        #expect(ExportFixtures.contents(path) == Array((String(repeating: line, count: 100) + "A\n").utf8))
        #expect(entries == ["out.txt"])
    }

    @Test func discardedOrDroppedSinkLeavesNothing() throws {
        let discarded = try OutputSink(.file(directory + "/a.txt"))
        try discarded.write(String(repeating: "y", count: 200_000))
        discarded.discard()
        #expect(entries.isEmpty, "\(entries)")
        do {
            let dropped = try OutputSink(.file(directory + "/b.txt"))
            try dropped.write(String(repeating: "z", count: 200_000))
        }
        #expect(entries.isEmpty, "\(entries)")
    }

    @Test func failureWhileWritingLeavesNothingAndKeepsAnOldFile() throws {
        struct Boom: Error {}
        let path = directory + "/old.txt"
        #expect(FileManager.default.createFile(atPath: path, contents: Data("old".utf8)))
        #expect(throws: ExportError.self) {
            try OutputSink.writing(to: .file(path)) { sink in
                try sink.write(String(repeating: "n", count: 200_000))
                throw Boom()
            }
        }
        #expect(entries == ["old.txt"])
        #expect(ExportFixtures.contents(path) == Array("old".utf8))
    }

    @Test func aMissingDirectoryIsRefusedAtOpen() throws {
        let path = directory + "/missing/out.txt"
        #expect {
            _ = try OutputSink(.file(path))
        } throws: { error in
            guard case .cannotWrite(let failed, _) = error as? ExportError else { return false }
            return failed == path
        }
        #expect(entries.isEmpty)
    }

    @Test func destinationFromAPath() {
        #expect(ExportDestination(path: nil) == .standardOutput)
        #expect(ExportDestination(path: "-") == .standardOutput)
        #expect(ExportDestination(path: "ride.gpx") == .file("ride.gpx"))
    }
}

/// The formats by name.
@Suite struct ExporterRegistryTests {
    struct Fake: MeasurementExporter {
        var name: String
        var filtersFixes = true
        var summary = "a fake format"
        func export(_ id: Int64, from store: Store, options: ExportOptions, to destination: ExportDestination) throws(ExportError) {}
    }

    @Test func standardFormatsInHelpOrder() throws {
        #expect(ExporterRegistry.standard.names == ["cyface", "gpx", "geojson", "csv", "gpkg", "svg"])
        #expect(ExporterRegistry.standard.exporter(named: "gpx") is GPXExporter)
        #expect(ExporterRegistry.standard.exporter(named: "pdf") == nil)
        #expect(ExporterRegistry.standard.exporter(named: "GPX") == nil, "names are exact, as --format spells them")
        // --clean applies to every format but the transfer file, which always carries every fix.
        #expect(ExporterRegistry.standard.exporters.filter { !$0.filtersFixes }.map(\.name) == ["cyface"])
    }

    @Test func aNewFormatIsOneRegistration() throws {
        var registry = ExporterRegistry.standard
        registry.register(Fake(name: "kml"))
        #expect(registry.names == ["cyface", "gpx", "geojson", "csv", "gpkg", "svg", "kml"])
        #expect(registry.exporter(named: "kml") is Fake)
        // The same name replaces, in place.
        registry.register(Fake(name: "gpx", filtersFixes: false))
        #expect(registry.names == ["cyface", "gpx", "geojson", "csv", "gpkg", "svg", "kml"])
        #expect(registry.exporter(named: "gpx")?.filtersFixes == false)
        #expect(ExporterRegistry.standard.exporter(named: "gpx") is GPXExporter, "the standard registry is a value")
    }
}
