import ArgumentParser
import CaptureConfig
import CaptureWiring
import CaptureCore
import CaptureStorage
import CaptureUpload
import Foundation

struct Upload: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upload",
        abstract: "Upload finished measurements to a Cyface collector, resumably.",
        discussion: """
            Without IDs, uploads every finished measurement that is pending, interrupted or \
            failed, oldest first; --all also retries skipped ones; --resume only continues \
            interrupted uploads (of the IDs given, if any). One measurement's failure does not \
            stop the others; a rejected token (401) stops the run.

            Nothing is sent twice or restarted: the session, the file's size and hash and the \
            acknowledged offset are stored before the first byte goes out, so after a crash or a \
            reboot `capture upload --resume` asks the collector where it stands and continues \
            there. Network errors, timeouts, 5xx, 429 and 403 are retried from the collector's \
            offset with exponential back-off and jitter within --retry-budget (at least as long \
            as a Retry-After says). A transfer file over the collector's payload limit is cut into \
            parts ("part 2/3 of 7"), each a measurement; 412 marks one skipped; another 4xx marks it \
            failed with the collector's reason. Every answer and what capture does about it: \
            docs/upload.md, "What happens".

            The collector URL (such as https://host/api/v4) comes from --url, \
            $CAPTURE_UPLOAD_URL, collector.url (`capture config`) or "url" in \
            <data dir>/upload.json; the token from `capture login` (auth.issuer), or the file named \
            by --token-file, $CAPTURE_TOKEN_FILE, collector.token_file or "tokenFile" in \
            upload.json (mode 600; the token is never printed). HTTPS certificates are verified. \
            The token goes only to the URL's origin: a session Location at another origin fails \
            that measurement unless --trust-origin (repeatable), $CAPTURE_TRUSTED_ORIGINS or \
            collector.trusted_origins names it.

            EXIT CODES: 0 everything chosen was uploaded or skipped, 75 some measurements \
            failed (the others were uploaded), 77 the token was rejected (401) or the token \
            file is readable by others, 78 no URL or token configured, 64 bad arguments, \
            74 database or file error, 73 disk full (run it again once there is room).
            """)
    @OptionGroup var data: DataDirectoryOptions
    @OptionGroup var output: OutputOptions
    @Argument(help: "Measurements to upload (default: all that are not uploaded).") var ids: [Int64] = []
    @Flag(help: "Also retry measurements marked skipped.") var all = false
    @Flag(help: "Only continue interrupted uploads, from where the collector stands.") var resume = false
    @Option(help: ArgumentHelp("The collector's base URL.", valueName: "url")) var url: String?
    @Option(help: ArgumentHelp("A file holding the bearer token (mode 600).", valueName: "file")) var tokenFile: String?
    @Option(
        help: ArgumentHelp(
            "Also send the token to this origin (scheme://host:port) when the collector's session Location points there; repeatable.",
            valueName: "url"))
    var trustOrigin: [String] = []
    @Option(help: ArgumentHelp("The largest PUT body in bytes (default: the whole file).", valueName: "bytes"))
    var chunkSize: Int64?
    @Option(
        help: ArgumentHelp(
            "Seconds of retrying per measurement before it is marked failed (default: collector.retry_budget, else 900).",
            valueName: "seconds"))
    var retryBudget: Double?
    @Option(
        help: ArgumentHelp(
            "The collector's payload limit: a larger measurement is cut into parts within it (default: collector.payload_limit, else 100M).",
            valueName: "size"))
    var payloadLimit: String?
    @Option(
        help: ArgumentHelp(
            "Upload this file as the transfer file of the single ID given (transport benchmarks).", valueName: "file",
            visibility: .hidden))
    var transferFile: String?

    func validate() throws {
        if let chunkSize, chunkSize < 1 { throw ValidationError("--chunk-size must be at least 1 byte") }
        if let retryBudget { guard retryBudget >= 0, retryBudget.isFinite else { throw ValidationError("--retry-budget must be ≥ 0") } }
        if transferFile != nil, ids.count != 1 { throw ValidationError("--transfer-file needs exactly one ID") }
        if !ids.isEmpty, all { throw ValidationError("IDs exclude --all") }
    }

    func run() async throws {
        UploadRun.returnLargeBuffersToTheSystem()
        var flags: [ConfigKey: DeviceConfiguration.Flag] = [:]
        if let url { flags[.collectorURL] = .init(url, option: "--url") }
        if let tokenFile { flags[.tokenFile] = .init(tokenFile, option: "--token-file") }
        if let retryBudget { flags[.retryBudget] = .init(String(retryBudget), option: "--retry-budget") }
        if let payloadLimit { flags[.payloadLimit] = .init(payloadLimit, option: "--payload-limit") }
        if !trustOrigin.isEmpty { flags[.trustedOrigins] = .init(trustOrigin, option: "--trust-origin") }
        let device = try data.device(flags)
        let settings = try device.uploadSettings()
        guard let store = try data.existingStore() else {
            if output.json { try printJSON([UploadResult]()) } else { print("nothing to upload: no measurements yet") }
            return
        }
        var options = device.uploadOptions(appVersion: BuildInfo.version)
        (options.chunkSize, options.transferFileOverride) = (chunkSize, transferFile)
        let run = UploadRun(store: store, dataDirectory: data.path, settings: settings, options: options)
        let json = output.json
        let printer = TransferProgress(enabled: !json && isatty(2) == 1).observer { if !json { print(Upload.line($0)) } }
        let selection = selection
        // One uploader per data directory (`capture sync` takes the same lock).
        let held = try await UploaderLock.whileHeld(directory: data.path) {
            try await run.run(selection, observer: printer)
        }
        guard let report = held else {
            if output.json { try printJSON([UploadResult]()) } else { print("another upload is running in \(data.path); nothing sent") }
            return
        }
        if output.json {
            try printJSON(report.results.map(Self.presented))
        } else if report.results.isEmpty {
            print(try (resume ? Self.waiting(UploadSelection.waitingCounts(in: store)) : nil).map { "nothing to resume: no upload was interrupted; \($0): run `capture upload` to send them" } ?? "nothing to upload")
        }
        try report.check()
    }

    /// The measurements to try, as the arguments choose them.
    var selection: UploadSelection {
        if resume { return .interrupted(among: ids.isEmpty ? nil : ids) }
        return ids.isEmpty ? .waiting(includingSkipped: all) : .measurements(ids)
    }

    /// A result as the user sees it: with the advice for a measurement that is still open.
    static func presented(_ result: UploadResult) -> UploadResult {
        var result = result
        if result.outcome == .notFinished { result.reason = (result.reason ?? "still open") + "; `capture stop` it first" }
        return result
    }

    /// `2 measurement(s) wait (1 failed, 1 pending)` for what an upload would try, by upload
    /// status; nil when none waits.
    static func waiting(_ counts: [UploadRecord.Status: Int]) -> String? {
        let total = counts.values.reduce(0, +)
        guard total > 0 else { return nil }
        let kinds = [UploadRecord.Status.failed, .pending, .uploading].compactMap { status in counts[status].map { "\($0) \(status.rawValue)" } }
        return "\(total) measurement(s) wait (\(kinds.joined(separator: ", ")))"
    }

    /// A result's line, with the advice for a measurement still open.
    static func line(_ result: UploadResult) -> String { presented(result).line }
}

