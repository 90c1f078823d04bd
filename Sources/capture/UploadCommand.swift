import ArgumentParser
import CaptureCore
import CaptureStorage
import CaptureUpload
import Dispatch
import Foundation
import Synchronization

struct Upload: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upload",
        abstract: "Upload finished measurements to a Cyface collector, resumably.",
        discussion: """
            Without IDs, uploads every finished measurement that is pending, interrupted or \
            failed, oldest first; --all also retries skipped ones; --resume only continues \
            interrupted uploads (of the IDs given, if any). An interrupted upload is always \
            continued where the collector stands, never restarted from 0 unless it says so. One measurement's failure does not stop the others; a rejected \
            token (401) stops the run.

            The session, the file's size and hash and the acknowledged offset are stored before \
            the first byte is sent, so after a crash, `kill -9` or a reboot `capture upload \
            --resume` asks the collector where it stands and continues from there. Network \
            errors, timeouts and 5xx lead to a status query and a resume at the collector's \
            Range end + 1, with exponential back-off and jitter within --retry-budget; a 308 \
            continues at its Range end + 1 (without Range: a status query); a 404 opens a new \
            session from byte 0. 409 (already stored) counts as uploaded; 412 marks \
            the measurement skipped; other 4xx mark it failed with the collector's reason.

            The collector URL (such as https://host/api/v4) comes from --url, \
            $CAPTURE_UPLOAD_URL or "url" in <data dir>/upload.json; the bearer token from the \
            file named by --token-file, $CAPTURE_TOKEN_FILE or "tokenFile" in upload.json. The \
            token file must not be readable by group or others (chmod 600), and the token is \
            never printed. HTTPS certificates are verified.

            EXIT CODES: 0 everything chosen was uploaded or skipped, 75 some measurements \
            failed (the others were uploaded), 77 the token was rejected (401) or the token \
            file is readable by others, 78 no URL or token configured, 64 bad arguments, \
            74 database or file error.
            """)
    @OptionGroup var data: DataDirectoryOptions
    @OptionGroup var output: OutputOptions
    @Argument(help: "Measurements to upload (default: all that are not uploaded).") var ids: [Int64] = []
    @Flag(help: "Also retry measurements marked skipped.") var all = false
    @Flag(help: "Only continue interrupted uploads, from where the collector stands.") var resume = false
    @Option(help: ArgumentHelp("The collector's base URL.", valueName: "url")) var url: String?
    @Option(help: ArgumentHelp("A file holding the bearer token (mode 600).", valueName: "file")) var tokenFile: String?
    @Option(help: ArgumentHelp("The largest PUT body in bytes (default: the whole file).", valueName: "bytes"))
    var chunkSize: Int64?
    @Option(help: ArgumentHelp("Seconds of retrying per measurement before it is marked failed.", valueName: "seconds"))
    var retryBudget: Double = 900
    @Option(
        help: ArgumentHelp(
            "Upload this file as the transfer file of the single ID given (transport benchmarks).", valueName: "file",
            visibility: .hidden))
    var transferFile: String?

    func validate() throws {
        if let chunkSize, chunkSize < 1 { throw ValidationError("--chunk-size must be at least 1 byte") }
        guard retryBudget >= 0, retryBudget.isFinite else { throw ValidationError("--retry-budget must be ≥ 0") }
        if transferFile != nil, ids.count != 1 { throw ValidationError("--transfer-file needs exactly one ID") }
        if !ids.isEmpty, all { throw ValidationError("IDs exclude --all") }
    }

    /// One measurement's result, for `--json` and the exit code.
    struct Result: Codable {
        var measurement: Int64
        /// uploaded, skipped, failed, unauthorized, notFinished, notFound.
        var result: String
        var reason: String?
        var bytes: Int64?
        var seconds: Double?
    }

    func run() throws {
        // Buffers of 128 KiB and more come from mmap and go back to the system when freed:
        // glibc's adaptive threshold would otherwise keep them in per-thread arenas, and the
        // peak RSS of a large upload would grow with the number of threads that touched them.
        _ = glibcMallopt(-3 /* M_MMAP_THRESHOLD, <malloc.h> */, 128 * 1024)
        try execute {
            let settings = try UploadSettings.resolve(url: url, tokenFile: tokenFile, dataDirectory: data.path)
            guard let store = try data.existingStore() else {
                if output.json { try printJSON([Result]()) } else { print("nothing to upload: no measurements yet") }
                return
            }
            let chosen = try selection(store)
            let progress = Progress(enabled: !output.json && isatty(2) == 1)
            let uploader = Uploader(
                baseURL: settings.url, token: settings.token, chunkSize: chunkSize,
                policy: .init(initialDelay: 250, maximumDelay: 30_000, budget: Int64(retryBudget * 1000)),
                userAgent: "capture/\(Capture.configuration.version)")
            defer { blocking { try? await uploader.shutdown() } }
            var results: [Result] = []
            for id in chosen {
                let result = try uploadOne(id, store: store, uploader: uploader, progress: progress)
                results.append(result)
                if !output.json { print(Self.line(result)) }
                if result.result == "unauthorized" { break }
            }
            if output.json {
                try printJSON(results)
            } else if results.isEmpty {
                print("nothing to upload")
            }
            if results.contains(where: { $0.result == "unauthorized" }) {
                throw CLIError(
                    .tokenRejected,
                    "the collector rejected the token (401): renew the token in \(settings.tokenSource) and run again")
            }
            let missed = results.filter { $0.result == "failed" || $0.result == "notFound" }
            if !missed.isEmpty {
                throw CLIError(
                    .uploadIncomplete,
                    "\(missed.count) of \(results.count) measurement(s) not uploaded (the reason is printed with each); "
                        + "fix the cause and run `capture upload` again")
            }
        }
    }

    /// The measurements to try, oldest first.
    private func selection(_ store: Store) throws -> [Int64] {
        let uploads = try store.uploads()
        if !ids.isEmpty { return ids.sorted().filter { !resume || uploads[$0]?.status == .uploading } }
        return try store.measurements().filter { !$0.isOpen }.map(\.id).filter { id in
            let status = uploads[id]?.status ?? .pending
            if resume { return status == .uploading }
            switch status {
            case .pending, .uploading, .failed: return true
            case .skipped: return all
            case .uploaded: return false
            }
        }
    }

    private func uploadOne(_ id: Int64, store: Store, uploader: Uploader, progress: Progress) throws -> Result {
        guard let record = try store.measurements().first(where: { $0.id == id }) else {
            return Result(measurement: id, result: "notFound", reason: "no measurement \(id)")
        }
        guard !record.isOpen else {
            return Result(measurement: id, result: "notFinished", reason: "still open; `capture stop` it first")
        }
        let previous = try store.upload(of: id)
        if previous.status == .uploaded {
            return Result(measurement: id, result: "uploaded", reason: "already uploaded")
        }
        guard
            let metadata = try UploadMetadata(
                store: store, measurement: id, appVersion: Capture.configuration.version)
        else {
            try store.finishUpload(of: id, status: .skipped, reason: CollectorProtocol.tooFewLocations)
            return Result(measurement: id, result: "skipped", reason: CollectorProtocol.tooFewLocations)
        }
        let file = try TransferFiles.file(for: id, store: store, dataDirectory: data.path, override: transferFile)
        // Resume only a session for exactly these bytes; another hash voids it.
        let resumable = previous.status == .uploading && previous.sessionURL != nil
            && previous.fileSHA256 == file.sha256 && previous.totalLength == file.size
        let session = resumable ? previous.sessionURL : nil
        try store.beginUpload(
            of: id, sessionURL: session, totalLength: file.size, sha256: file.sha256,
            acknowledged: resumable ? previous.acknowledged : 0)
        let observer = StoreObserver(store: store, measurement: id, file: file, progress: progress)
        progress.begin(id, total: file.size)
        let began = Date()
        let outcome = blocking { await uploader.upload(file, metadata: metadata, session: session, observer: observer) }
        progress.end()
        let seconds = Date().timeIntervalSince(began)
        var result = Result(measurement: id, result: "uploaded", bytes: file.size, seconds: seconds)
        switch outcome {
        case .uploaded:
            try store.finishUpload(of: id, status: .uploaded)
        case .alreadyStored:
            try store.finishUpload(of: id, status: .uploaded, reason: "the collector already had it (409)")
            result.reason = "the collector already had it"
        case .skipped(let reason):
            try store.finishUpload(of: id, status: .skipped, reason: reason)
            result.result = "skipped"
            result.reason = reason
        case .failed(let reason):
            try store.finishUpload(of: id, status: .failed, reason: reason)
            result.result = "failed"
            result.reason = reason
        case .unauthorized(let reason):
            // Keep the session: with a fresh token, `--resume` continues where it stopped.
            result.result = "unauthorized"
            result.reason = reason
        }
        return result
    }

    static func line(_ result: Result) -> String {
        var text = "measurement \(result.measurement): \(result.result)"
        if let bytes = result.bytes, let seconds = result.seconds, result.result == "uploaded", result.reason == nil {
            text += ", \(Progress.bytes(bytes)) in \(String(format: "%.1f", seconds)) s"
        }
        if let reason = result.reason { text += " (\(reason))" }
        return text
    }
}

/// Persists the session and acknowledgements as the uploader reports them, before it sends more.
private struct StoreObserver: UploadObserver {
    let store: Store
    let measurement: Int64
    let file: UploadFile
    let progress: Progress

    func sessionChanged(_ url: String?) throws {
        try store.beginUpload(of: measurement, sessionURL: url, totalLength: file.size, sha256: file.sha256)
    }

    func acknowledged(_ bytes: Int64) throws {
        try store.acknowledgeUpload(of: measurement, bytes: bytes)
    }

    func sent(_ bytes: Int64) { progress.update(bytes) }

    func retrying(after milliseconds: Int64, problem: String) {
        progress.note("retrying in \(String(format: "%.1f", Double(milliseconds) / 1000)) s: \(problem)")
    }
}

/// Where the collector is and how to authenticate: flags, then environment, then
/// `<data dir>/upload.json`.
struct UploadSettings {
    var url: String
    var token: String
    /// Where the token came from, for messages (never the token itself).
    var tokenSource: String

    private struct File: Decodable {
        var url: String?
        var tokenFile: String?
    }

    static func resolve(url: String?, tokenFile: String?, dataDirectory: String) throws -> UploadSettings {
        let environment = ProcessInfo.processInfo.environment
        let configPath = dataDirectory + "/upload.json"
        var config = File(url: nil, tokenFile: nil)
        if let bytes = FileManager.default.contents(atPath: configPath) {
            do {
                config = try JSONDecoder().decode(File.self, from: bytes)
            } catch {
                throw CLIError(.configuration, "\(configPath) is not valid JSON with string fields url and tokenFile")
            }
        }
        func nonEmpty(_ text: String?) -> String? { text.flatMap { $0.isEmpty ? nil : $0 } }
        guard let base = nonEmpty(url) ?? nonEmpty(environment["CAPTURE_UPLOAD_URL"]) ?? nonEmpty(config.url) else {
            throw CLIError(.configuration, "no collector URL: pass --url, set CAPTURE_UPLOAD_URL or put \"url\" in \(configPath)")
        }
        guard let parsed = URL(string: base), let scheme = parsed.scheme?.lowercased(), scheme == "http" || scheme == "https",
            parsed.host != nil
        else {
            throw CLIError(.usage, "the collector URL must be an http or https URL, such as https://example.com/api/v4")
        }
        guard
            let path = nonEmpty(tokenFile) ?? nonEmpty(environment["CAPTURE_TOKEN_FILE"]) ?? nonEmpty(config.tokenFile)
        else {
            throw CLIError(
                .configuration,
                "no token: pass --token-file, set CAPTURE_TOKEN_FILE or put \"tokenFile\" in \(configPath)")
        }
        return UploadSettings(url: base, token: try readToken(path), tokenSource: path)
    }

    /// Reads a token file that only its owner can read.
    static func readToken(_ path: String) throws -> String {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw CLIError(.notFound, "cannot read the token file \(path): \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw CLIError(
                .tokenRejected,
                "the token file \(path) is readable by group or others (mode \(String(info.st_mode & 0o777, radix: 8))); chmod 600 it")
        }
        guard let bytes = FileManager.default.contents(atPath: path) else {
            throw CLIError(.ioError, "cannot read the token file \(path)")
        }
        let token = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty, !token.contains(where: { $0.isNewline || $0 == " " }) else {
            throw CLIError(.configuration, "the token file \(path) must hold one token on one line")
        }
        return token
    }
}

/// Progress on standard error: a bar on a terminal, nothing otherwise (the caller prints a
/// line per measurement).
final class Progress: Sendable {
    private struct State {
        var id: Int64 = 0
        var total: Int64 = 0
        var sent: Int64 = 0
        var began = Date()
        var lastDraw = Date.distantPast
        var note = ""
    }

    let enabled: Bool
    private let state = Mutex(State())

    init(enabled: Bool) { self.enabled = enabled }

    func begin(_ id: Int64, total: Int64) {
        state.withLock { $0 = State(id: id, total: total) }
    }

    func update(_ sent: Int64) {
        guard enabled else { return }
        state.withLock { state in
            state.sent = sent
            let now = Date()
            // At most ten redraws a second.
            guard now.timeIntervalSince(state.lastDraw) >= 0.1 || sent == state.total else { return }
            state.lastDraw = now
            Self.draw(state, now: now)
        }
    }

    func note(_ text: String) {
        guard enabled else { return }
        state.withLock { state in
            state.note = text
            Self.draw(state, now: Date())
        }
    }

    func end() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    private static func draw(_ state: State, now: Date) {
        let fraction = state.total > 0 ? min(1, Double(state.sent) / Double(state.total)) : 0
        let width = 24
        let filled = Int(fraction * Double(width))
        let elapsed = max(now.timeIntervalSince(state.began), 0.001)
        let rate = Double(state.sent) / elapsed
        let eta = rate > 0 ? Double(state.total - state.sent) / rate : 0
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        var line = "measurement \(state.id) [\(bar)] \(bytes(state.sent))/\(bytes(state.total)) "
            + "\(bytes(Int64(rate)))/s ETA \(Format.duration(Int64(eta * 1000)))"
        if !state.note.isEmpty { line += " – \(state.note)" }
        FileHandle.standardError.write(Data("\r\u{1B}[K\(line.prefix(160))".utf8))
    }

    static func bytes(_ count: Int64) -> String {
        let value = Double(count)
        if value >= 1e9 { return String(format: "%.2f GB", value / 1e9) }
        if value >= 1e6 { return String(format: "%.1f MB", value / 1e6) }
        if value >= 1e3 { return String(format: "%.1f kB", value / 1e3) }
        return "\(count) B"
    }
}

/// Runs async work from a synchronous command and waits for it: the command line runs on the
/// main thread, the work on the cooperative pool.
func blocking<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
    let result = Mutex<T?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        let value = await work()
        result.withLock { $0 = value }
        done.signal()
    }
    done.wait()
    return result.withLock { $0! }
}

/// glibc's `mallopt(3)`; `<malloc.h>` is not part of the Glibc module.
@_silgen_name("mallopt")
private func glibcMallopt(_ parameter: Int32, _ value: Int32) -> Int32
