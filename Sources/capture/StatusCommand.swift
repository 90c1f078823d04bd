import ArgumentParser
import CaptureCore
import CaptureRecorder
import CaptureStorage
import Foundation

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show what is being captured right now.",
        discussion: """
            State is idle, capturing, paused or interrupted (the measurement is open but its \
            recorder is gone: `capture resume` or `capture stop`). Counts are what is committed \
            (durable: in the database, or in the flush log on its way there, which a crash \
            does not lose); rates are over the last ten seconds.

            The data directory should be mode 700 and the database 600 (capture creates them \
            so): if group or others can read them, one line on standard error says so with the \
            chmod to run, and --json lists them under "exposed".
            """)
    @OptionGroup var data: DataDirectoryOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        try execute {
            let report = try RecorderControl(directory: data.controlPath).status()
            if let warning = Self.warning(report.exposed) { FileHandle.standardError.write(Data((warning + "\n").utf8)) }
            if output.json {
                try printJSON(report)
            } else {
                print(text(report))
            }
        }
    }

    /// `warning: other users can read /d (mode 755), /d/capture.sqlite (mode 644); run: chmod 700 /d; chmod 600 /d/capture.sqlite`.
    static func warning(_ exposed: [PrivacyCheck.Exposure]) -> String? {
        guard !exposed.isEmpty else { return nil }
        return "warning: other users can read " + exposed.map { "\($0.path) (mode \($0.mode))" }.joined(separator: ", ")
            + "; run: " + exposed.map(\.chmod).joined(separator: "; ")
    }

    private func text(_ report: StatusReport) -> String {
        var uploadLine = ""
        if let uploads = report.uploads, !uploads.isEmpty {
            uploadLine = "\n  uploads    " + UploadRecord.Status.allCases.compactMap { status in
                uploads[status.rawValue].map { "\($0) \(status.rawValue)" }
            }.joined(separator: ", ")
        }
        var deliveryLines = ""
        if let delivery = report.delivery {
            deliveryLines += "\n  delivery   \(delivery.delivered) delivered, \(delivery.waiting) waiting"
                + (delivery.failed > 0 ? " (\(delivery.failed) failed)" : "")
                + ", \(delivery.skipped) skipped, \(delivery.discarded) discarded; \(delivery.retries) retries"
        }
        if let sync = report.sync {
            if let next = sync.nextAttemptAt {
                deliveryLines += "\n  sync       \(sync.failures) pass(es) failed (\(sync.lastError ?? "?")); next attempt at \(Format.time(next))"
            } else if let last = sync.lastAttemptAt {
                deliveryLines += "\n  sync       last delivered at \(Format.time(last))"
            }
        }
        uploadLine += deliveryLines
        guard let id = report.measurement else {
            return "idle: no measurement is open (data in \(report.dataDirectory))" + uploadLine
        }
        var lines = [
            "measurement \(id): \(report.state.rawValue), track \(report.track ?? 0), \((report.modality ?? .unknown).rawValue)"
        ]
        if report.state == .interrupted {
            lines.append("  the recorder is not running: `capture resume` continues on a new track, `capture stop` finishes")
        }
        if let counts = report.committed { lines.append("  committed  " + Format.counts(counts)) }
        if let recorder = report.recorder {
            lines.append("  recorder   pid \(recorder.pid), since \(Format.time(recorder.startedAt)), flush every \(Double(recorder.flushIntervalMs) / 1000) s")
            let rates = recorder.sensors.map { "\($0.sensor) \(String(format: "%.1f", $0.rate)) Hz" }
            lines.append("  rates      " + rates.joined(separator: ", "))
            if let fix = recorder.lastFix {
                lines.append(
                    "  last fix   \(fix.latitude), \(fix.longitude)"
                        + (fix.horizontalAccuracy.map { String(format: " ±%.1f m", $0) } ?? "") + " at \(Format.time(fix.timestamp))")
            }
            for source in recorder.sources {
                var line = "  source     \(source.name): \(source.state.rawValue), \(source.samples) samples"
                if let lost = source.lost, lost > 0 { line += ", \(lost) lost" }
                if let skipped = source.skipped, skipped > 0 { line += ", \(skipped) unused skipped" }
                if let gnss = source.gnss { line += ", fix \(gnss.rawValue)" }
                lines.append(line + (source.error.map { " (\($0))" } ?? "") + (source.note.map { "; \($0)" } ?? ""))
            }
            if let failed = recorder.failedSources, failed > 0 {
                lines.append("  sources failed: \(failed) of \(recorder.sources.count) (the others go on)")
            }
            if let clock = recorder.clock { lines.append("  clock      " + Format.clock(clock)) }
            if let trace = recorder.recordingTrace { lines.append("  trace      \(trace)") }
            if recorder.droppedWhilePaused > 0 { lines.append("  dropped while paused: \(recorder.droppedWhilePaused)") }
            if recorder.rejectedUnstorable > 0 {
                lines.append("  rejected (NaN or out of range): \(recorder.rejectedUnstorable)")
            }
        }
        return lines.joined(separator: "\n") + uploadLine
    }
}
