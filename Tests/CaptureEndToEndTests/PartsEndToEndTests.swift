import CaptureCore
import CaptureTransfer
import CaptureStorage
import CaptureTestSupport
import Foundation
import Glibc
import Testing

/// A measurement recorded under the default payload limit and delivered after the limit is
/// lowered (issue 33, item 3): cut into parts, each its own measurement at the collector, whose
/// fixes together are the original's; each part exactly once, also across a kill in the middle.
@Suite(.serialized) struct PartsEndToEndTests {
    let cli = CLI()

    /// A ride of `seconds` seconds: a fix a second and a noisy accelerometer at 100 Hz.
    func replay(seconds: Int, start: Int64 = 1_781_424_000_000) throws -> Int64 {
        var lines = ["#capture-trace v1", "start \(start) BICYCLE"]
        var random = SplitMix64(seed: 33)
        for second in 0..<seconds {
            let t = start + Int64(second) * 1000
            for step in 0..<100 {
                let noise = { Double(random.next() % 2000) / 1000 - 1 }
                lines.append(String(format: "acc %lld %.3f %.3f %.3f", t + Int64(step) * 10, noise(), noise(), 9.81 + noise()))
            }
            lines.append(String(format: "fix %lld %.7f %.7f 120.0 5.0 7.0 4.00 90.0", t + 500, 51.05 + Double(second) * 0.00003, 13.73))
        }
        lines.append("stop \(start + Int64(seconds) * 1000)")
        try FileManager.default.createDirectory(atPath: cli.dataDirectory, withIntermediateDirectories: true)
        let path = cli.dataDirectory + "-\(UUID().uuidString).trace"
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        defer { unlink(path) }
        let result = try cli.run(["replay", path])
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(Int64(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    /// The original's fixes and a limit that its transfer file is over.
    func prepared(seconds: Int) throws -> (id: Int64, fixes: [Fix], limit: Int64) {
        let id = try replay(seconds: seconds)
        let store = try Store(directory: cli.dataDirectory)
        let size = try store.transferFile(for: id, directory: cli.dataDirectory).size
        let limit = size / 2
        try #require(limit > TransferSizeBound.overhead + 40_000, "the ride is too small to cut: \(size) bytes")
        return (id, try store.fixes(of: id), limit)
    }

    func upload(_ collector: CollectorProcess, limit: Int64, _ extra: [String] = []) throws -> CLI.Result {
        try cli.run(
            ["upload", "--url", collector.url, "--token-file", collector.tokenFile, "--retry-budget", "20",
             "--payload-limit", String(limit)] + extra)
    }

    /// What the collector holds, in measurement id order: each upload's id and fixes.
    func delivered(_ collector: CollectorProcess) throws -> [(id: Int64, size: Int, fixes: [Fix])] {
        try collector.stored().map { stored in
            (Int64(stored.metadata["measurementId"] ?? "") ?? -1, stored.bytes.count,
             try TransferFileDecoder.decode([UInt8](stored.bytes)).fixes)
        }.sorted { $0.id < $1.id }
    }

    @Test func aMeasurementOverALoweredLimitIsDeliveredAsParts() throws {
        let (id, fixes, limit) = try prepared(seconds: 600)
        // The collector refuses anything over the limit (422), as the real one does.
        let collector = try CollectorProcess(["--payload-limit", String(limit), "--validate"])
        let result = try upload(collector, limit: limit, ["--json"])
        #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
        let results = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        let parts = results.filter { $0["attachment"] == nil }
        #expect(parts.count >= 2, "\(result.stdout)")
        for (index, part) in parts.enumerated() {
            #expect(part["result"] as? String == "uploaded", "\(part)")
            let described = part["part"] as? [String: Int]
            #expect(described == ["original": Int(id), "number": index + 1, "count": parts.count], "\(part)")
        }
        let held = try delivered(collector)
        #expect(held.map(\.id) == parts.compactMap { ($0["measurement"] as? Int).map(Int64.init) })
        #expect(held.first?.id == id)
        for part in held { #expect(part.size <= Int(limit)) }
        // Together, in order, the original's fixes: none lost, none twice.
        let together = held.flatMap(\.fixes)
        #expect(together.map(\.timestamp) == fixes.map(\.timestamp))
        #expect(together.map(\.latitude) == fixes.map(\.latitude))
        // Shown as parts; counted.
        let list = try cli.run(["list"]).stdout
        #expect(list.contains("(part 1/\(parts.count) of \(id))") && list.contains("(part \(parts.count)/\(parts.count) of \(id))"), "\(list)")
        let metrics = try cli.run(["metrics"]).stdout
        #expect(metrics.contains("capture_measurements_cut_total 1"), "\(metrics)")
        #expect(metrics.contains("capture_measurement_parts_total \(parts.count)"), "\(metrics)")
        // Nothing is left to deliver.
        #expect(try upload(collector, limit: limit).stdout.contains("nothing to upload"))
    }

    /// `capture upload` killed (SIGKILL) after the first part reached the collector: the next run
    /// delivers the others, and the collector holds each part once.
    @Test func eachPartOnceAcrossAKill() throws {
        let (id, fixes, limit) = try prepared(seconds: 600)
        // About two seconds a part, so the kill lands between parts or inside one.
        let collector = try CollectorProcess(["--payload-limit", String(limit), "--throttle", String(limit / 2)])
        let first = try Subprocess(
            ["upload", "--url", collector.url, "--token-file", collector.tokenFile, "--payload-limit", String(limit),
             "--data-dir", cli.dataDirectory], executable: CLI.executable)
        #expect(cli.waitFor(60) { ((try? collector.stored().count) ?? 0) >= 1 })
        kill(first.pid, SIGKILL)
        _ = first.wait()
        let partsSoFar = try Store(directory: cli.dataDirectory).parts().count
        #expect(partsSoFar >= 2)
        #expect(try collector.stored().count < partsSoFar, "the kill came after every part was delivered")

        let again = try upload(collector, limit: limit)
        #expect(again.status == 0, "\(again.stdout) \(again.stderr)")
        let held = try delivered(collector)
        #expect(held.count == partsSoFar)
        #expect(Set(held.map(\.id)).count == held.count, "a part was delivered twice: \(held.map(\.id))")
        #expect(held.first?.id == id)
        #expect(held.flatMap(\.fixes).map(\.timestamp) == fixes.map(\.timestamp))
    }
}
