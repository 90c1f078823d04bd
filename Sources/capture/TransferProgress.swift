import CaptureCore
import CaptureUpload
import Foundation
import Synchronization

/// A progress bar for one transfer at a time on standard error, when it is a terminal: begin a
/// transfer, report the bytes the collector holds, add a note (a retry), end it. Redraws at
/// most ten times a second; nothing is drawn when ``enabled`` is false.
final class TransferProgress: Sendable {
    /// What the bar shows.
    struct State: Sendable, Equatable {
        var id: Int64 = 0
        var total: Int64 = 0
        var sent: Int64 = 0
        var began = Date()
        var lastDraw = Date.distantPast
        var note = ""
        /// Whether a bar is on the screen, to be cleared by `end()`.
        var drawn = false
        /// Whether this transfer was retried before (its first retry is also a line of its own).
        var retried = false
        /// What the collector held when this run took the transfer up (a resumed upload): the
        /// rate counts only what this run sent.
        var resumedFrom: Int64 = 0

        init(id: Int64 = 0, total: Int64 = 0, sent: Int64 = 0, began: Date = Date(), note: String = "") {
            (self.id, self.total, self.sent, self.began, self.note) = (id, total, sent, began, note)
        }
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
            let back = sent < state.sent
            state = Self.advanced(state, to: sent)
            let now = Date()
            guard now.timeIntervalSince(state.lastDraw) >= 0.1 || sent == state.total || back else { return }
            state.lastDraw = now
            state.drawn = true
            Self.draw(Self.line(state, now: now))
        }
    }

    func note(_ text: String) {
        guard enabled else { return }
        state.withLock { state in
            state.note = text
            state.drawn = true
            Self.draw(Self.line(state, now: Date()))
        }
    }

    /// The collector holds `bytes`: before this run sent anything, the upload resumes there (a
    /// session an earlier run left), which the bar shows, and a line of its own says.
    func acknowledged(_ bytes: Int64) {
        guard let resumed = state.withLock({ (state: inout State) -> State? in
            guard let next = Self.resumed(state, at: bytes) else { return nil }
            state = next
            return next
        }) else { return }
        let line = "upload: measurement \(resumed.id): \(resumed.note)\n"
        guard enabled else {
            FileHandle.standardError.write(Data(line.utf8))
            return
        }
        FileHandle.standardError.write(Data("\r\u{1B}[K\(line)".utf8))
        state.withLock { $0.drawn = true }
        Self.draw(Self.line(resumed, now: Date()))
    }

    /// `state` taken up where the collector holds `bytes`, or `nil` when that is no resumption
    /// (this run sent bytes already, the collector holds none, or all: that is the end).
    static func resumed(_ state: State, at bytes: Int64) -> State? {
        guard state.sent == 0, state.resumedFrom == 0, bytes > 0, bytes < state.total else { return nil }
        var state = state
        (state.sent, state.resumedFrom) = (bytes, bytes)
        state.note = "resuming at \(ByteCount.text(bytes)) of \(ByteCount.text(state.total)), where the collector stands"
        return state
    }

    /// A retry after `milliseconds` because of `problem`: on a terminal in the bar, and the
    /// transfer's first one also as a line of its own (it names the collector and must not be
    /// cut at the terminal's width); without a terminal (a script, journald) a line each, on
    /// standard error, with the real wait.
    func retrying(after milliseconds: Int64, problem: String) {
        let text = Self.retryLine(after: milliseconds, problem: problem)
        // A line of its own names its measurement (the bar does already).
        let line = "upload: measurement \(state.withLock { $0.id }): \(text)\n"
        guard enabled else {
            FileHandle.standardError.write(Data(line.utf8))
            return
        }
        state.withLock { state in
            if !state.retried { FileHandle.standardError.write(Data("\r\u{1B}[K\(line)".utf8)) }
            state.retried = true
            state.note = text
            state.drawn = true
            Self.draw(Self.line(state, now: Date()))
        }
    }

    /// `retrying in 0.2 s: connection refused (127.0.0.1:1)`.
    static func retryLine(after milliseconds: Int64, problem: String) -> String {
        "retrying in \(String(format: "%.1f", Double(milliseconds) / 1000)) s: \(problem)"
    }

    /// Clears the bar, if one was drawn.
    func end() {
        guard enabled, state.withLock({ state in defer { state.drawn = false }; return state.drawn }) else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    /// `state` with `sent` bytes: the bar never goes back without saying why. Fewer bytes than
    /// before means the uploader resumes where the collector stands (after a retry, the bytes
    /// in flight were not all received): the note says so.
    static func advanced(_ state: State, to sent: Int64) -> State {
        var state = state
        if sent < state.sent {
            state.note = "resuming at \(ByteCount.text(sent)), where the collector stands"
        }
        state.sent = sent
        return state
    }

    /// `measurement 7 [######..] 1.2 MB/2.4 MB 600 kB/s ETA 0:00:02 – note`, at most 160 characters.
    static func line(_ state: State, now: Date) -> String {
        let fraction = state.total > 0 ? min(1, Double(state.sent) / Double(state.total)) : 0
        let width = 24
        let filled = Int(fraction * Double(width))
        let elapsed = max(now.timeIntervalSince(state.began), 0.001)
        let rate = Double(state.sent - state.resumedFrom) / elapsed
        let eta = rate > 0 ? Double(state.total - state.sent) / rate : 0
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        // All handed over is not all received: the network may hold much of it, and only the
        // collector's answer says how much it has (a resumed upload went on at 55 %, not 100 %).
        let left = state.total > 0 && state.sent >= state.total ? "sent, awaiting the collector's answer"
            : "ETA \(TextFormat.duration(Int64(eta * 1000)))"
        var line = "measurement \(state.id) [\(bar)] \(ByteCount.text(state.sent))/\(ByteCount.text(state.total)) "
            + "\(ByteCount.text(Int64(rate)))/s \(left)"
        if !state.note.isEmpty { line += " – \(state.note)" }
        return String(line.prefix(160))
    }

    private static func draw(_ line: String) {
        FileHandle.standardError.write(Data("\r\u{1B}[K\(line)".utf8))
    }
}

extension TransferProgress {
    /// An observer of an upload run that draws this bar while a measurement is sent and hands
    /// each result to `finished` (the command line prints its line there).
    func observer(finished: @escaping @Sendable (UploadResult) -> Void) -> some UploadRunObserver {
        BarObserver(progress: self, done: finished)
    }
}

private struct BarObserver: UploadRunObserver {
    let progress: TransferProgress
    let done: @Sendable (UploadResult) -> Void

    func transferBegins(measurement: Int64, bytes: Int64) { progress.begin(measurement, total: bytes) }
    func transferSent(_ bytes: Int64) { progress.update(bytes) }
    func transferAcknowledged(_ bytes: Int64) { progress.acknowledged(bytes) }
    /// In the bar on a terminal (the first also as a line); a line each without one.
    func transferRetrying(after milliseconds: Int64, problem: String) { progress.retrying(after: milliseconds, problem: problem) }

    func finished(_ result: UploadResult) {
        progress.end()
        done(result)
    }
}
