import CaptureCore
import CaptureTransfer
import CaptureStorage
import CaptureTestSupport
import Foundation
import Glibc
import Testing

/// Issue 4 item 6: independent decoders read what `capture export --format cyface` wrote.
@Suite struct CrossCheckTests {
    /// An exported bicycle fixture and its Swift decoding.
    func exported(_ cli: CLI) throws -> (path: String, file: CyfaceTransferFile, plain: [UInt8]) {
        #expect(try cli.run(["replay", cli.fixture("bicycle.trace")]).status == 0)
        let path = cli.dataDirectory + "/bicycle.ccyf"
        let export = try cli.run(["export", "1", "--format", "cyface", "-o", path])
        #expect(export.status == 0, "\(export.stderr)")
        let bytes = [UInt8](try #require(FileManager.default.contents(atPath: path)))
        return (path, try TransferFileDecoder.decode(bytes), try TransferFileDecoder.decompress(bytes).1)
    }

    @Test func protobufCDecoderAgreesWithTheSwiftDecoder() throws {
        guard let protocC = Program.require("protoc-c", package: "protobuf-c-compiler"),
            let cc = Program.require("cc", package: "gcc")
        else { return }
        for header in ["/usr/include/protobuf-c/protobuf-c.h", "/usr/include/zlib.h"]
        where !FileManager.default.fileExists(atPath: header) {
            Issue.record("\(header) is missing: run scripts/setup (installs libprotobuf-c-dev zlib1g-dev)")
            return
        }
        let cli = CLI()
        let build = FileManager.default.temporaryDirectory.appendingPathComponent("capture-crosscheck-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: build, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: build) }
        let generate = try Program.run(
            protocC, ["--c_out=\(build)", "--proto_path=\(Repository.root)/protos", "de/cyface/protos/model/measurement.proto"])
        #expect(generate.status == 0, "protoc-c: \(generate.stderr)")
        let compile = try Program.run(
            cc,
            [
                "-O1", "-I\(build)", "\(Repository.root)/Tests/CrossCheck/decode.c",
                "\(build)/de/cyface/protos/model/measurement.pb-c.c", "-lprotobuf-c", "-lz", "-o", "\(build)/decode",
            ])
        #expect(compile.status == 0, "cc: \(compile.stderr)")
        guard compile.status == 0 else { return }

        let (path, swift, plain) = try exported(cli)
        let c = try Program.run("\(build)/decode", [path])
        #expect(c.status == 0, "decode: \(c.stderr)")

        var expected: [String] = ["uncompressed \(plain.count)", "format_version 3", "locations \(swift.fixes.count)"]
        func scaled(_ value: Double, _ factor: Double) -> Int64 { Int64((value * factor).rounded()) }
        func location(_ fix: Fix) -> String {
            "\(fix.timestamp) \(scaled(fix.latitude, 1e6)) \(scaled(fix.longitude, 1e6)) "
                + "\(scaled(fix.horizontalAccuracy ?? 0, 100)) \(scaled(fix.speed ?? 0, 100))"
        }
        if let first = swift.fixes.first, let last = swift.fixes.last {
            expected += ["location_first \(location(first))", "location_last \(location(last))"]
        }
        for (sensor, name) in [(MotionSensor.accelerometer, "accelerations"), (.gyroscope, "rotations"), (.magnetometer, "directions")] {
            let samples = swift.samples(of: sensor)
            let factor = CyfaceBatch.scale(for: sensor)
            expected.append("\(name) \(swift.batches[sensor]?.count ?? 0) batches \(samples.count) samples")
            func line(_ s: MotionSample) -> String {
                "\(s.timestamp) \(scaled(s.x, factor)) \(scaled(s.y, factor)) \(scaled(s.z, factor))"
            }
            if let first = samples.first, let last = samples.last {
                expected += ["\(name)_first \(line(first))", "\(name)_last \(line(last))"]
            }
        }
        expected.append("events \(swift.events.count)")
        expected += swift.events.map { "event \($0.timestamp) \($0.type.rawValue) \($0.value ?? "-")" }
        #expect(c.stdout.split(separator: "\n").map(String.init) == expected)
        // The fixture has data in every column, so the comparison is not vacuous.
        #expect(swift.fixes.count == 540 && swift.samples(of: .magnetometer).count == 54_000 && swift.events.count >= 5)
    }

    @Test func protocDecodesTheExportedFile() throws {
        guard let protoc = Program.require("protoc", package: "protobuf-compiler") else { return }
        let cli = CLI()
        let (_, swift, plain) = try exported(cli)
        let result = try Program.run(
            protoc,
            ["--decode=de.cyface.protos.model.Measurement", "--proto_path=\(Repository.root)/protos", "de/cyface/protos/model/measurement.proto"],
            input: Array(plain.dropFirst(2)))
        #expect(result.status == 0, "protoc --decode: \(result.stderr)")
        let text = result.stdout
        #expect(text.hasPrefix("format_version: 3\nlocation_records {\n"))
        #expect(text.components(separatedBy: "\n  latitude: ").count - 1 == swift.fixes.count)
        #expect(text.components(separatedBy: "\n  accelerations {").count - 1 == swift.batches[.accelerometer]?.count)
        #expect(text.components(separatedBy: "\n  rotations {").count - 1 == swift.batches[.gyroscope]?.count)
        #expect(text.components(separatedBy: "\n  directions {").count - 1 == swift.batches[.magnetometer]?.count)
        #expect(text.components(separatedBy: "\nevents {").count - 1 == swift.events.count)
        #expect(text.contains("type: LIFECYCLE_PAUSE") && text.contains("value: \"WALKING\""))
    }
}
