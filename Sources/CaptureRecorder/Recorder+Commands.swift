package import CaptureCore
package import CaptureSensors
package import CaptureStorage
import Foundation
import Glibc
import Synchronization

// The control socket's requests: lifecycle commands and status, answered by the state machine.
extension Recorder {
    // MARK: - Commands

    /// Handles one control request.
    func command(_ request: ControlRequest) -> ControlReply {
        let now = clock()
        let decide: (inout RecorderStateMachine) -> RecorderStateMachine.CommandResult
        switch request.command {
        case .status: return ControlReply(ok: true, status: status())
        case .pause: decide = { $0.command(.pause, at: now, by: .control) }
        case .resume: decide = { $0.command(.resume, at: now, by: .control) }
        case .stop: decide = { $0.command(.stop, at: now, by: .control) }
        case .modality:
            guard let modality = request.modality else {
                return ControlReply(
                    ok: false, failure: ControlFailure(kind: .badRequest, message: "a modality change names no modality"))
            }
            decide = { $0.command(.modality(modality), at: now, by: .control) }
        case .mark:
            let source = request.source ?? "control"
            decide = { $0.markRequested(at: now, by: source) }
        case .begin: decide = { $0.beginRequested(at: now) }
        }
        let performed = DispatchSemaphore(value: 0)
        var result = RecorderStateMachine.CommandResult.applied([], outcome: nil)
        handle(barrier: performed) { machine in
            result = decide(&machine)
            guard case .applied(let actions, _) = result else { return [] }
            return actions
        }
        // Answered once what the command decided is durable (or has failed).
        performed.wait()
        switch result {
        case .refused(let error): return ControlReply(ok: false, failure: ControlFailure(error))
        case .failed(let error): return ControlReply(ok: false, failure: ControlFailure(error))
        case .applied(_, let outcome):
            if let failure = machine.withLock({ $0.failure }) { return ControlReply(ok: false, failure: ControlFailure(failure)) }
            return ControlReply(ok: true, status: status(), outcome: outcome)
        }
    }

    /// Ends the run (SIGTERM, SIGINT): a ride under way ends, an armed recorder stops waiting.
    func shutdown() {
        let now = clock()
        let performed = DispatchSemaphore(value: 0)
        handle(barrier: performed) { $0.shutdown(at: now) }
        performed.wait()
    }

    func status() -> RecorderStatus {
        let now = clock()
        var status = RecorderStatus?.none
        handle { machine in
            status = machine.status(at: now)
            return []
        }
        guard var status else { preconditionFailure("handle runs its event") }
        let published = self.published.withLock { $0 }
        status.pid = getpid()
        status.startedAt = startedAt
        status.staged = published.staged
        status.flushes = published.flushes.figures
        status.recordingTrace = tracePath.map { path in published.traceFailure.map { "\(path) (stopped: \($0))" } ?? path }
        return status
    }

    /// Reads the rider's button until the run ends: each press an event, as a command is.
    func read(_ button: ButtonReader) {
        button.run(stop: stopSignal) { press in
            let now = clock()
            handle { $0.pressed(press, device: button.device, now: now) }
        } note: { line in
            recorderLog.warning("\(line)")
        }
    }

    /// An event from a driver of its own (`capture-faults simulate`), as ``handle(barrier:_:)``.
    package func feed(_ event: (inout RecorderStateMachine) -> [RecorderStateMachine.Action]) { handle(event) }

    /// A look at the state value, under its lock.
    package func inspect<T: Sendable>(_ body: (RecorderStateMachine) -> T) -> T { machine.withLock { body($0) } }

    /// Test hook: runs `body` holding the state lock, as an event does.
    func withStateLocked(_ body: () -> Void) {
        machine.withLock { _ in body() }
    }

    func serve(_ listener: Int32) {
        defer { serverStopped.signal() }
        while !stopSignal.isStopped {
            // No timeout: a client, or the stop signal (then the loop ends).
            guard case .ready = (try? stopSignal.wait(for: listener, timeout: nil)) ?? .timedOut else { continue }
            // Only this recorder's own user is answered (peer credentials).
            guard let client = ControlSocket.accept(listener) else { continue }
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let reply: ControlReply
            if let line = try? ControlSocket.readLine(client),
                let request = try? JSONDecoder().decode(ControlRequest.self, from: line)
            {
                reply = command(request)
            } else {
                reply = ControlReply(ok: false, failure: ControlFailure(kind: .badRequest, message: "unreadable request"))
            }
            if let data = try? JSONEncoder().encode(reply) { try? ControlSocket.writeAll(client, data + Data([0x0A])) }
            close(client)
        }
    }
}
