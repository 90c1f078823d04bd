import CaptureStorage
import Foundation
import Glibc

/// A `capture-collector` on 127.0.0.1 with an ephemeral port and its own directory, stopped by
/// pid (SIGTERM, then SIGKILL) with ``stop()``.
final class CollectorRun {
    let directory: String
    let tokenFile: String
    let port: Int
    private let child: Child

    /// Starts a collector in a new directory on an ephemeral port or, to bring one back after
    /// ``stop()``, in `previous`'s directory (its data and token) on its port.
    ///
    /// - Parameter restartable: listen on a free port below the kernel's ephemeral range
    ///   (32768 and up), so that while this collector is stopped no other process that binds
    ///   port 0 (another test's collector) can take its port before it comes back.
    /// - Parameter withTokenFile: clients authenticate with the token file; `false` for a
    ///   collector whose `arguments` choose another way (`--issuer`).
    init(
        context: Context, arguments: [String], continuing previous: CollectorRun? = nil, restartable: Bool = false,
        withTokenFile: Bool = true
    ) throws {
        if let previous {
            directory = previous.directory
            tokenFile = previous.tokenFile
        } else {
            directory = try context.directory("collector")
            tokenFile = directory + "/token"
            guard
                FileManager.default.createFile(
                    atPath: tokenFile, contents: Data("faults-\(UUID().uuidString)\n".utf8),
                    attributes: [.posixPermissions: 0o600])
            else { throw CampaignError("cannot write \(tokenFile)") }
        }
        context.log("capture-collector \(arguments.joined(separator: " "))")
        child = try Child(
            context.collector,
            ["--port", String(previous?.port ?? (restartable ? try Self.portBelowEphemeralRange() : 0)), "--data-dir", directory + "/data"]
                + (withTokenFile ? ["--token-file", tokenFile] : []) + arguments,
            directory: directory, name: context.outputName("collector"))
        var port: Int?
        let deadline = Clock.now() + 30
        while port == nil, Clock.now() < deadline, child.poll() == nil {
            port = child.stdout.split(separator: "\n").first.flatMap { Int($0) }
            if port == nil { usleep(20_000) }
        }
        guard let port else {
            child.stop()
            throw CampaignError("capture-collector did not start: \(child.stderr)")
        }
        self.port = port
    }

    deinit { child.stop() }

    /// A port of 127.0.0.1 in 20000…32767 that is free now (checked by binding it).
    private static func portBelowEphemeralRange() throws -> Int {
        for _ in 0..<200 {
            let port = Int.random(in: 20000...32767)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { break }
            defer { close(fd) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            if bound == 0 { return port }
        }
        throw CampaignError("no free port below the ephemeral range")
    }

    func stop() { child.stop() }

    /// A copy of the collector's token in `directory` (mode 600), for a device's configuration
    /// (`collector.token_file`); its path.
    func tokenCopy(in directory: String) throws -> String {
        let token = try String(contentsOfFile: tokenFile, encoding: .utf8)
        let path = directory + "/token"
        guard FileManager.default.createFile(atPath: path, contents: Data(token.utf8), attributes: [.posixPermissions: 0o600])
        else { throw CampaignError("cannot write \(path)") }
        return path
    }

    /// The configuration lines of a box that delivers to this collector by the timer's `capture
    /// sync` alone (no `upload.auto`) and keeps its store within `budget` bytes, never dropping
    /// what is unsent; the token copied into `directory` (``tokenCopy(in:)``).
    func deliveryConfiguration(in directory: String, budget: Int64) throws -> String {
        """
        collector: { url: "\(url)", token_file: \(try tokenCopy(in: directory)), retry_budget: 10s }
        upload: { auto: false, min_waiting: 1, max_age: 6h }
        retention: { keep_uploaded_days: 30, max_store_size: \(budget), drop_unsent: never }

        """
    }

    var url: String { "http://127.0.0.1:\(port)/" }

    /// `--url … --token-file …` for `capture upload`.
    var uploadArguments: [String] { ["--url", url, "--token-file", tokenFile] }

    /// The completed uploads: (measurementId, deviceId, bytes) per stored session.
    func stored() throws -> [(measurement: String, device: String, bytes: Data)] {
        let folder = directory + "/data/measurements"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return try names.filter { $0.hasSuffix(".json") }.sorted().map { name in
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))
            let object = json as? [String: Any] ?? [:]
            let bytes = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name.dropLast(5) + ".ccyf"))
            return (object["measurementId"] as? String ?? "?", object["deviceId"] as? String ?? "?", bytes)
        }
    }

    /// The size of `partial/<sid>`, if the session has received data.
    func partialSize(_ sid: String) -> Int64? {
        var info = stat()
        return stat(directory + "/data/partial/" + sid, &info) == 0 ? Int64(info.st_size) : nil
    }

    /// Sizes of all partial files, to see when the collector has settled.
    var partialSizes: [String: Int64] {
        let folder = directory + "/data/partial"
        var sizes: [String: Int64] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            if let size = partialSize(name) { sizes[name] = size }
        }
        return sizes
    }

    /// The lines of ranges.log.
    var ranges: [String] {
        ((try? String(contentsOfFile: directory + "/data/ranges.log", encoding: .utf8)) ?? "")
            .split(separator: "\n").map(String.init)
    }
}

/// Checks a finished delivery: `collector` holds each of `files` (measurement → `capture export`
/// bytes) exactly once, byte-identical, and the store in `data` has each marked uploaded.
func checkDelivered(_ files: [Int64: Data], to collector: CollectorRun, from data: String, label: String, tally: Tally) throws {
    let stored = try collector.stored()
    for (id, bytes) in files {
        let copies = stored.filter { $0.measurement == String(id) }
        tally.check(copies.count == 1, "\(label): measurement \(id) stored \(copies.count) times")
        tally.check(copies.allSatisfy { $0.bytes == bytes }, "\(label): measurement \(id) stored bytes differ from capture export")
    }
    let states = try Store.inspect(data) { try $0.uploads() }
    tally.check(
        files.keys.allSatisfy { states[$0]?.status == .uploaded },
        "\(label): local upload states \(files.keys.sorted().map { "\($0): \(states[$0]?.status.rawValue ?? "pending")" })")
}
