import CaptureTestSupport
import Foundation
import Glibc
import Testing

// Bad arguments and paths: rows of docs/bad-input.md (the shared helpers are in BadInputTests.swift).

@Suite struct BadArgumentTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var status: Int32
        var message: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let car = Repository.root + "/fixtures/car.trace"

    static let rows: [Row] = [
        Row(arguments: ["frobnicate"], status: 64, message: "capture: unknown command 'frobnicate'; see `capture --help`"),
        Row(arguments: ["list", "--frob"], status: 64, message: "capture: Unknown option '--frob'. Did you mean '--json'? See `capture list --help`"),
        Row(arguments: ["show"], status: 64, message: "capture: Missing expected argument '<id>'; see `capture show --help`"),
        Row(arguments: ["show", "abc"], status: 64, message: "capture: The value 'abc' is invalid for '<id>'; see `capture show --help`"),
        Row(arguments: ["show", "99"], status: 66, message: "capture: no measurement 99"),
        Row(arguments: ["delete", "0", "--yes"], status: 66, message: "capture: no measurement 0"),
        Row(arguments: ["export", "99", "--format", "gpx"], status: 66, message: "capture: no measurement 99"),
        Row(arguments: ["export", "1", "--format", "pdf"], status: 64, message: "capture: The value 'pdf' is invalid for '--format <format>'"),
        Row(arguments: ["start", "--modality", "rocket", "--source", "trace:" + car], status: 64, message: "capture: unknown modality 'rocket'; use one of"),
        Row(arguments: ["replay", car, "--modality", "rocket"], status: 64, message: "capture: unknown modality 'rocket'; use one of"),
        Row(arguments: ["start", "--flush-interval", "0", "--source", "trace:" + car], status: 64, message: "capture: --flush-interval must be between 0.05 and 3600 seconds"),
        Row(arguments: ["start", "--flush-interval=-1", "--source", "trace:" + car], status: 64, message: "capture: --flush-interval must be between 0.05 and 3600 seconds"),
        Row(arguments: ["replay", car, "--flush-interval", "nan"], status: 64, message: "capture: --flush-interval must be between 0.05 and 3600 seconds"),
        Row(arguments: ["replay", car, "--speed", "0"], status: 64, message: "capture: --speed must be a positive number"),
        Row(arguments: ["replay", car, "--speed", "fast"], status: 64, message: "capture: The value 'fast' is invalid for '--speed <speed>'"),
        Row(arguments: ["start", "--source", "gps:x"], status: 64, message: "capture: unknown source 'gps:x'; use trace:FILE"),
        Row(arguments: ["start", "--source", "gpsd:host:port"], status: 64, message: "capture: bad gpsd address in 'gpsd:host:port'; use gpsd:HOST:PORT"),
        Row(arguments: ["start", "--source", "iio:iio:device0@fast"], status: 64, message: "capture: bad rate in 'iio:iio:device0@fast'"),
        Row(arguments: ["start", "--rate", "0", "--source", "trace:" + car], status: 64, message: "capture: --rate must be a number of Hz above 0"),
        Row(arguments: ["start", "--source", "nmea:/nonexistent/gnss0"], status: 66, message: "capture: no GNSS receiver at /nonexistent/gnss0"),
        Row(arguments: ["replay", "/nonexistent.trace"], status: 66, message: "capture: cannot open trace /nonexistent.trace: No such file or directory"),
        Row(arguments: ["replay", "/tmp"], status: 66, message: "capture: cannot open trace /tmp: it is a directory"),
        Row(arguments: ["upload", "--url", "ftp://127.0.0.1/", "--token-file", "/nonexistent"], status: 64, message: "capture: the collector URL must be an http or https URL"),
        Row(arguments: ["upload", "--url", "http://127.0.0.1:1/", "--token-file", "/nonexistent/token"], status: 66, message: "capture: cannot read the token file /nonexistent/token"),
        Row(arguments: ["upload", "--chunk-size", "0"], status: 64, message: "capture: --chunk-size must be at least 1 byte"),
    ]

    @Test(arguments: rows)
    func badArgumentIsRefusedAndChangesNothing(_ row: Row) throws {
        let cli = CLI()
        // An unknown subcommand is reported before any option, so it is run without --data-dir.
        let result =
            row.arguments == ["frobnicate"]
            ? try Program.run(CLI.executable, row.arguments).cliResult : try cli.run(row.arguments)
        expectRefusal(result, row.status, row.message, row.testDescription)
        #expect(try cli.databaseDump() == "", "\(row.testDescription): something was stored")
        #expect(cli.recorderPID == nil)
    }

    @Test(arguments: ["file", "under a file"])
    func dataDirectoryThatIsAFileIsRefused(_ kind: String) throws {
        let file = scratch("not-a-directory")
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        defer { unlink(file) }
        let directory = kind == "file" ? file : file + "/capture"
        let result = try Program.run(CLI.executable, ["replay", Self.car, "--data-dir", directory])
        let reason = kind == "file" ? "it is a file" : "\(file) is a file"
        expectRefusal(
            result.cliResult, 74, "cannot open the data directory \(directory): \(reason), not a directory; choose another --data-dir", kind)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "x")
    }

    @Test func exportToABadPathLeavesNoFile() throws {
        let cli = CLI()
        #expect(try cli.run(["replay", Self.car]).status == 0)
        let before = try cli.databaseDump()
        let file = scratch("plain-file")
        #expect(FileManager.default.createFile(atPath: file, contents: Data("keep".utf8)))
        defer { unlink(file) }
        let missing = scratch("missing-dir") + "/ride.gpx"
        for (arguments, status, message) in [
            (["export", "1", "--format", "gpx", "-o", missing], Int32(74), missing),
            (["export", "1", "--format", "cyface", "-o", file + "/ride.ccyf"], 74, file + "/ride.ccyf"),
            (["export", "1", "--format", "csv", "-o", file], 74, "cannot create the directory \(file)"),
            (["export", "2", "--format", "geojson", "-o", scratch("never.geojson")], 66, "no measurement 2"),
            (
                ["export", "1", "--format", "csv", "-o", scratch("tables.csv")], 64,
                "names a .csv file; nothing was written; pass a directory (-o DIR) for every table, or --table TABLE without -o for one on standard output"
            ),
        ] {
            let result = try cli.run(arguments)
            expectRefusal(result, status, message, arguments.joined(separator: " "))
            if let output = arguments.last { #expect(!FileManager.default.fileExists(atPath: output) || output == file) }
        }
        #expect(!FileManager.default.fileExists(atPath: (missing as NSString).deletingLastPathComponent))
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "keep")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: FileManager.default.temporaryDirectory.path)
            .filter { $0.hasPrefix(".capture-bad-") }
        #expect(leftovers.isEmpty, "temporary export files left: \(leftovers)")
        #expect(try cli.databaseDump() == before)
    }
}
