import CaptureCore
import CaptureRecorder
import CaptureSensors
import CaptureStorage
import Foundation

extension StatusReport {
    /// The human-readable form of `capture status`; `interrupted` says what to do about an
    /// interrupted measurement, `room` what makes room in a full store (the front end names its
    /// commands).
    func text(interrupted: String, room: String = "") -> String {
        var uploadLine = ""
        if let uploads = uploads, !uploads.isEmpty {
            let keys = UploadRecord.Status.allCases.map(\.rawValue) + [Self.interruptedUpload]
            uploadLine = "\n  uploads    " + keys.compactMap { key in uploads[key].map { "\($0) \(key)" } }.joined(separator: ", ")
        }
        var deliveryLines = ""
        if let delivery = delivery {
            deliveryLines += "\n  delivery   \(delivery.delivered) delivered, \(delivery.waiting) waiting"
                + (delivery.failed > 0 ? " (\(delivery.failed) failed)" : "")
                + ", \(delivery.skipped) skipped, \(delivery.discarded) discarded; \(delivery.retries) retries"
        }
        if let sync = sync {
            if let next = sync.nextAttemptAt {
                deliveryLines += "\n  sync       \(sync.failures) pass(es) failed (\(sync.lastError ?? "?")); next attempt at \(TextFormat.time(next))"
            } else if let last = sync.lastAttemptAt {
                deliveryLines += "\n  sync       last delivered at \(TextFormat.time(last))"
            }
        }
        if let login = login {
            deliveryLines += "\n  login      " + Self.loginText(login)
        }
        uploadLine += deliveryLines
        if let rides { uploadLine += "\n  rides      " + rides.text }
        let waiting = ride.flatMap { ride in
            ride.state == .waitingForRoom
                ? "for room since \(TextFormat.time(ride.since)): the store is full of rides the collector has not taken "
                    + "(nothing in it may go); nothing is recorded until there is room" + (room.isEmpty ? "" : "; " + room + ", and the recorder records again by itself")
                : nil
        }
        guard let id = measurement else {
            if let waiting, let recorder {
                return "waiting " + waiting + " (recorder pid \(recorder.pid); data in \(dataDirectory))" + uploadLine
            }
            if let ride, ride.state == .armed, let recorder {
                return "armed since \(TextFormat.time(ride.since)): a ride begins when motion does (recorder pid \(recorder.pid); "
                    + "data in \(dataDirectory))" + uploadLine
            }
            return "idle: no measurement is open (data in \(dataDirectory))" + uploadLine
        }
        var lines = [
            "measurement \(id): \(state.rawValue), track \(track ?? 0), \((modality ?? .unknown).rawValue)"
        ]
        if let waiting { lines.append("  waiting    " + waiting) }
        if let ride, ride.state == .recording || ride.state == .still {
            let distance = ride.distance.map { ", \(TextFormat.distance($0)) so far" } ?? ""
            lines.append("  ride       \(ride.state == .still ? "still" : "moving") since \(TextFormat.time(ride.since))\(distance)")
        }
        if state == .interrupted {
            if recorderStarting == true {
                lines.append("  its recorder is gone; a new recorder is starting and has not taken it on yet")
            } else if let recorder {
                let holds = recorder.measurement == 0 ? "no measurement yet" : "measurement \(recorder.measurement)"
                lines.append("  its recorder is gone; the running recorder (pid \(recorder.pid)) holds \(holds)")
            } else {
                lines.append("  the recorder is not running: " + interrupted)
            }
            if let ended { lines.append("  ended      " + ended.text) }
        }
        if let counts = committed { lines.append("  committed  " + counts.text) }
        if let recorder = recorder {
            lines.append("  recorder   pid \(recorder.pid), since \(TextFormat.time(recorder.startedAt)), flush every \(Double(recorder.flushIntervalMs) / 1000) s")
            let rates = recorder.sensors.map { "\($0.sensor) \(String(format: "%.1f", $0.rate)) Hz" }
            lines.append("  rates      " + rates.joined(separator: ", "))
            if let fix = recorder.lastFix {
                lines.append(
                    "  last fix   \(fix.latitude), \(fix.longitude)"
                        + (fix.horizontalAccuracy.map { String(format: " ±%.1f m", $0) } ?? "") + " at \(TextFormat.time(fix.timestamp))")
            }
            for source in recorder.sources {
                var line = "  source     \(TraceSpec.shownName(source.name)): \(source.state.rawValue), \(source.samples) samples"
                if let lost = source.lost, lost > 0 { line += ", \(lost) lost" }
                if let skipped = source.skipped, skipped > 0 { line += ", \(skipped) unused skipped" }
                if let gnss = source.gnss { line += ", fix \(gnss.rawValue)" }
                lines.append(line + (source.error.map { " (\($0))" } ?? "") + (source.note.map { "; \($0)" } ?? ""))
            }
            if let failed = recorder.failedSources, failed > 0 {
                let others = failed < recorder.sources.count ? "the others go on" : "nothing more is recorded"
                lines.append("  sources failed: \(failed) of \(recorder.sources.count) (\(others))")
            }
            if let clock = recorder.clock { lines.append("  clock      " + TextFormat.clock(clock)) }
            if let trace = recorder.recordingTrace { lines.append("  trace      \(trace)") }
            if recorder.eventsWaiting == true {
                lines.append("  waiting    lifecycle events wait in the flush log: another process holds the database")
            }
            if recorder.droppedWhilePaused > 0 { lines.append("  dropped while paused: \(recorder.droppedWhilePaused)") }
            if recorder.rejectedUnstorable > 0 {
                lines.append("  rejected (NaN or out of range): \(recorder.rejectedUnstorable)")
            }
        }
        return lines.joined(separator: "\n") + uploadLine
    }

    /// `offline login to ISSUER, refreshed TIME; ends TIME unless refreshed` or `… gone (why)`.
    static func loginText(_ login: LoginLifetime.Report) -> String {
        let kind = login.offline ? "offline login" : "session-bound login"
        switch login.health {
        case .gone:
            return "\(kind) to \(login.issuer) is gone (\(login.goneReason ?? "expired")) since \(TextFormat.time(login.expiresAt))"
        case .alive, .expiring:
            return "\(kind) to \(login.issuer), refreshed \(TextFormat.time(login.grantedAt)); ends \(TextFormat.time(login.expiresAt)) unless refreshed"
        }
    }
}

extension RideTally {
    /// `3 begun by motion, 1 by size; ended 2 by motion, 1 by power, …; 1 discarded as still`.
    var text: String {
        "begun \(self[.begunByMotion]) by motion, \(self[.begunBySize]) by size"
            + (self[.begunByButton] > 0 ? ", \(self[.begunByButton]) by the button" : "")
            + (self[.begunByCommand] > 0 ? ", \(self[.begunByCommand]) by command" : "")
            + "; ended \(self[.endedByMotion]) by motion, "
            + "\(self[.endedByPower]) by power, \(self[.endedBySize]) by size, \(self[.endedByCommand]) by command"
            + (self[.endedByButton] > 0 ? ", \(self[.endedByButton]) by the button" : "")
            + (self[.endedByFullStore] > 0 ? ", \(self[.endedByFullStore]) by a full store; " : "; ")
            + "\(self[.discardedAsStill]) discarded as still"
            + (self[.sawUnderVoltage] > 0 ? "; \(self[.sawUnderVoltage]) saw under-voltage" : "")
    }
}
