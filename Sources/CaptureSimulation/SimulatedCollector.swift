import CaptureCore
import CaptureStorage
import CaptureUpload

/// A Cyface collector as the simulation needs one: it answers the requests the real
/// ``UploadStateMachine`` decides (pre-request, PUTs of byte ranges, status queries; 409 for a
/// measurement it holds, 412 for one with fewer than two locations), is down or fails
/// (500 to half its requests, drawn from the life's seed) as the events say, and remembers
/// what it holds. The transfer file stands in as its length: 256 bytes and 24 a fix.
final class SimulatedCollector {
    struct Session {
        var measurement: Int64
        var received: Int64
        var total: Int64
        var fixes: Int
    }

    var mode: SimulatedEvent.Collector = .up
    /// What it holds, by measurement: the fixes the box's store had when its upload completed.
    private(set) var held: [Int64: Int] = [:]
    private var sessions: [String: Session] = [:]
    private var random: SplitMix64
    /// Broken promises, for ``Ledger``: a measurement stored twice.
    var violations: [Violation] = []

    init(seed: UInt64) {
        random = SplitMix64(seed: seed ^ 0x5EED_C011_EC70_0000)
    }

    static let chunk: Int64 = 16_384

    static func length(fixes: Int) -> Int64 { 256 + 24 * Int64(fixes) }

    /// The answer to a request; nil when it gets none (down).
    private func answer(_ body: () -> UploadStateMachine.Response) -> UploadStateMachine.Response? {
        switch mode {
        case .down: return nil
        case .failing where random.unit() < 0.5: return .init(status: 500, reason: "simulated failure")
        default: return body()
        }
    }

    private func preRequest(_ id: Int64, fixes: Int) -> UploadStateMachine.Response? {
        answer {
            if held[id] != nil { return .init(status: 409, reason: "already stored") }
            if fixes < 2 { return .init(status: 412, reason: "too few locations") }
            let session = "https://collector.invalid/sessions/\(id)-\(sessions.count)"
            sessions[session] = Session(measurement: id, received: 0, total: Self.length(fixes: fixes), fixes: fixes)
            return .init(status: 201, location: session)
        }
    }

    private func put(_ session: String, range: ClosedRange<Int64>) -> UploadStateMachine.Response? {
        answer {
            guard var open = sessions[session] else { return .init(status: 404, reason: "no such session") }
            guard range.lowerBound <= open.received else { return progress(open) }
            open.received = max(open.received, range.upperBound + 1)
            sessions[session] = open
            guard open.received >= open.total else { return progress(open) }
            sessions[session] = nil
            if held[open.measurement] != nil {
                violations.append(
                    Violation(invariant: "delivered-once", detail: "measurement \(open.measurement) was stored by the collector twice"))
            }
            held[open.measurement] = open.fixes
            return .init(status: 201)
        }
    }

    private func status(_ session: String) -> UploadStateMachine.Response? {
        answer {
            guard let open = sessions[session] else {
                return .init(status: 404, reason: "no such session")
            }
            return progress(open)
        }
    }

    private func progress(_ open: Session) -> UploadStateMachine.Response {
        .init(status: 308, range: open.received > 0 ? "bytes=0-\(open.received - 1)" : nil)
    }

    // MARK: - The delivery pass

    /// The sync timer's `capture sync`: a connection of its own to the store; when the
    /// collector answers, every finished measurement not delivered is uploaded by the real
    /// ``UploadStateMachine`` (a back-off past a minute leaves it for the next pass, its session
    /// stored); then the store is pruned as `retention` says. Returns the event log's lines.
    func deliveryPass(directory: String, clock: @escaping @Sendable () -> Int64, stamp: String) -> [String] {
        var lines: [String] = []
        do {
            let store = try Store(directory: directory, clock: clock)
            var delivered: [Int64] = []
            if mode != .down {
                let uploads = try store.uploads()
                for measurement in try store.measurements() where measurement.status == .finished {
                    let record = uploads[measurement.id] ?? .pending(measurement.id)
                    guard record.status != .uploaded, record.status != .skipped else { continue }
                    let outcome = try upload(measurement.id, record: record, store: store)
                    if outcome?.isSuccess == true { delivered.append(measurement.id) }
                }
            }
            let pruned = try store.prune(SimulatedBox.retention, now: clock(), directory: directory).removed.map(\.measurement)
            if !delivered.isEmpty || !pruned.isEmpty || mode != .up {
                func list(_ ids: [Int64]) -> String { ids.isEmpty ? "none" : ids.map(String.init).joined(separator: ",") }
                lines.append("  \(stamp) sync (collector \(mode.rawValue)): delivered \(list(delivered)), pruned \(list(pruned))")
            }
        } catch {
            lines.append("  \(stamp) sync failed: \(error)")
        }
        return lines
    }

    /// One measurement's upload in this pass; nil when it was left for the next one.
    private func upload(_ id: Int64, record: UploadRecord, store: Store) throws -> UploadStateMachine.Outcome? {
        let fixes = try store.counts(of: id).locations
        let total = Self.length(fixes: fixes)
        var machine = UploadStateMachine(
            totalLength: total, chunkSize: Self.chunk, policy: .standard, random: SplitMix64(seed: random.next()))
        var action = machine.start(session: record.status == .uploading ? record.sessionURL : nil)
        var elapsed: Int64 = 0
        try store.noteUploadAttempt(of: id)
        while true {
            elapsed += 50
            switch action {
            case .preRequest:
                guard let response = preRequest(id, fixes: fixes) else {
                    action = machine.transportFailed("connection refused", elapsed: elapsed)
                    continue
                }
                if let location = response.location, response.status == 201 {
                    try store.beginUpload(of: id, sessionURL: location, totalLength: total, sha256: nil)
                }
                action = machine.preRequestAnswered(response, elapsed: elapsed)
            case .put(let session, let range):
                guard let response = put(session, range: range) else {
                    action = machine.transportFailed("connection reset", elapsed: elapsed)
                    continue
                }
                if response.status == 308, let next = UploadStateMachine.nextByte(fromRange: response.range) {
                    try store.acknowledgeUpload(of: id, bytes: next)
                }
                action = machine.putAnswered(response, elapsed: elapsed)
            case .queryStatus(let session):
                guard let response = status(session) else {
                    action = machine.transportFailed("connection refused", elapsed: elapsed)
                    continue
                }
                action = machine.statusAnswered(response, elapsed: elapsed)
            case .backOff(let milliseconds):
                elapsed += milliseconds
                // The pass gives up after a minute of waiting: the timer's next pass goes on.
                guard elapsed <= 60_000 else { return nil }
                try store.noteUploadRetry(of: id)
                action = machine.backOffElapsed(elapsed: elapsed)
            case .renewToken:
                action = machine.tokenRenewed()
            case .done(let outcome):
                switch outcome {
                case .uploaded, .alreadyStored:
                    if let stored = held[id], stored != fixes {
                        violations.append(
                            Violation(
                                invariant: "delivered-once",
                                detail: "measurement \(id): the collector holds \(stored) fixes under its id, the box \(fixes)"))
                    }
                    try store.finishUpload(of: id, status: .uploaded)
                case .skipped(let reason): try store.finishUpload(of: id, status: .skipped, reason: reason)
                case .failed(let reason), .unauthorized(let reason): try store.finishUpload(of: id, status: .failed, reason: reason)
                }
                return outcome
            }
        }
    }
}
