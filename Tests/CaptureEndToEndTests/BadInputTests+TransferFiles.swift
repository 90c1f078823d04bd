import CaptureCore
import CaptureTestSupport
import CaptureTransfer
import Foundation
import Glibc
import Testing

// Truncated and corrupt transfer files: rows of docs/bad-input.md (the shared helpers are in BadInputTests.swift).

@Suite struct BadTransferFileTests {
    /// A real transfer file: a short ride replayed and exported in a data directory of its own.
    static let valid: [UInt8] = {
        let cli = CLI()
        let trace = scratch("ride.trace")
        defer { unlink(trace) }
        guard (try? shortTrace(fixes: 30).write(toFile: trace, atomically: true, encoding: .utf8)) != nil,
            (try? cli.run(["replay", trace]))?.status == 0,
            let result = try? Program.run(CLI.executable, ["export", "1", "--format", "cyface", "--data-dir", cli.dataDirectory]),
            result.status == 0
        else { return [] }
        return result.stdoutBytes
    }()

    static func flipped(_ bytes: [UInt8], at fraction: Double) -> [UInt8] {
        var copy = bytes
        guard !copy.isEmpty else { return copy }
        copy[Int(Double(copy.count) * fraction)] ^= 0x5A
        return copy
    }

    /// `00 03 || Measurement` uncompressed.
    static func plain(_ measurement: CyfaceMeasurement) -> [UInt8] {
        (try? TransferFileWriter.serialize(measurement)) ?? []
    }

    static var rows: [BadFile] {
        let file = valid
        let base = "not a Cyface v3 transfer file: "
        return [
            BadFile("empty file", [], base + "input of 0 bytes is too short for a transfer file"),
            BadFile("truncated to half", Array(file.prefix(file.count / 2)), base + "the raw deflate stream ends before its end marker"),
            BadFile("truncated to 10 bytes", Array(file.prefix(10)), base + "the raw deflate stream ends before its end marker"),
            BadFile("one byte flipped", flipped(file, at: 0.3), base),
            BadFile("trailing garbage", file + Array("garbage".utf8), base + "7 bytes follow the end of the compressed stream"),
            BadFile(
                "format version 1 header", [0x00, 0x01, 0x80, 0x01, 0x01],
                base + "header says format v1 (legacy big-endian binary), which is not supported; only v3 is"),
            BadFile(
                "format version 2 in the message", [0x80, 0x01, 0x02],
                base + "format_version field says format v2 (unsigned timestamps), which is not supported; only v3 is"),
            BadFile(
                "a latitude of 500°",
                plain(CyfaceMeasurement(fixes: [Fix(timestamp: 1_000, latitude: 500, longitude: 13), Fix(timestamp: 2_000, latitude: 51, longitude: 13)])),
                "the fix at 1000 has latitude 500.0, longitude 13.0: not a position on Earth"),
            BadFile("a valid but empty measurement", plain(CyfaceMeasurement()), "the file holds no fixes, samples or events: nothing to import"),
            BadFile(
                "RESUME without PAUSE",
                plain(
                    CyfaceMeasurement(
                        fixes: [Fix(timestamp: 1_000, latitude: 51, longitude: 13)],
                        events: [Event(timestamp: 1_000, type: .lifecycleStart), Event(timestamp: 2_000, type: .lifecycleResume)])),
                "invalid lifecycle events: LIFECYCLE_RESUME at 2000 without a preceding LIFECYCLE_PAUSE"),
        ]
    }

    @Test(arguments: rows)
    func corruptTransferFileIsRefusedAndNothingIsStored(_ row: BadFile) throws {
        try #require(!Self.valid.isEmpty, "could not make a transfer file to damage")
        let cli = CLI()
        let path = try row.write()
        defer { unlink(path) }
        let result = try cli.run(["import", path])
        expectRefusal(result, 65, "\(path): \(row.message)", row.name)
        #expect(try cli.databaseDump() == "", "\(row.name): something was stored")
    }

    @Test func decompressionBombIsRefusedBeforeItFillsMemory() throws {
        // 300 MiB of zeros deflate to about 300 kB.
        let deflater = try Deflater(level: 9)
        var bomb: [UInt8] = []
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        for _ in 0..<300 { try deflater.write(zeros) { bomb += $0 } }
        try deflater.finish { bomb += $0 }
        let cli = CLI()
        let path = try BadFile("bomb", bomb, "").write()
        defer { unlink(path) }
        let result = try cli.run(["import", path])
        expectRefusal(result, 65, "the data decompresses to more than 268435456 bytes", "bomb")
        #expect(try cli.databaseDump() == "")
    }

    @Test(arguments: ["/dev/zero", "directory", "missing"])
    func notAFileIsRefused(_ kind: String) throws {
        let cli = CLI()
        let path = kind == "/dev/zero" ? kind : scratch(kind)
        if kind == "directory" { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        defer { if kind == "directory" { rmdir(path) } }
        let result = try cli.run(["import", path])
        if kind == "/dev/zero" {
            expectRefusal(result, 65, "/dev/zero is not a regular file; import a .ccyf file", kind)
        } else {
            expectRefusal(result, 66, "no such file: \(path)", kind)
        }
        #expect(try cli.databaseDump() == "")
    }

    @Test func sameRideTwiceIsRefusedUnlessAgain() throws {
        try #require(!Self.valid.isEmpty, "could not make a transfer file to import")
        let cli = CLI()
        let path = try BadFile("ride", Self.valid, "").write()
        defer { unlink(path) }
        let first = try cli.run(["import", path])
        #expect(first.status == 0 && first.stdout == "1\n", "\(first.stderr)")
        let stored = try cli.databaseDump()
        let second = try cli.run(["import", path])
        expectRefusal(
            second, 65,
            "\(path) is already stored as measurement 1; nothing imported (`capture show 1`); "
                + "`capture import --again` stores it once more on purpose", "the same file again")
        #expect(try cli.databaseDump() == stored, "a refused import stored something")
        let again = try cli.run(["import", "--again", path])
        #expect(again.status == 0 && again.stdout == "2\n", "\(again.stderr)")
    }
}
