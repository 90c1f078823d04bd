import CaptureCore
import CaptureRecorder
import CaptureStorage
import Foundation

// The page's words for the status: what state the box is in, and what a person must fix.
extension StatusReport {
    /// The box's state in a word or three: the ride's state with `ride.detect: auto`, else the
    /// measurement's.
    var stateWord: String {
        if let ride {
            switch ride.state {
            case .armed: return "armed"
            case .recording: return recorder?.lastFix == nil ? "recording, no fix" : "recording"
            case .still: return "standing still"
            case .waitingForRoom: return "waiting for room"
            }
        }
        switch state {
        case .capturing: return recorder?.lastFix == nil ? "recording, no fix" : "recording"
        default: return state.rawValue
        }
    }

    /// What a person must fix, one line each: a login gone, a store full of rides not delivered
    /// (or near its budget), a source gone, a recording that ended by itself, failed deliveries,
    /// a data directory others can read.
    func problems(storeSize: Int64, budget: ByteSize?) -> [String] {
        var problems: [String] = []
        if let login, login.health == .gone {
            problems.append("the login to \(login.issuer) is gone (\(login.goneReason ?? "expired")): run capture login")
        }
        if ride?.state == .waitingForRoom {
            problems.append("the store is full of rides not delivered: recording waits until some are delivered")
        } else if let budget, storeSize * 10 >= budget.bytes * 9 {
            problems.append("the store holds \(Self.bytes(storeSize)) of its \(Self.bytes(budget.bytes)): deliver rides")
        }
        for source in recorder?.sources ?? [] where source.state == .failed {
            problems.append("source \(source.name) failed" + (source.error.map { ": \($0)" } ?? ""))
        }
        if let ended { problems.append("the recording ended by itself (\(ended.kind.rawValue))" + (ended.reason.map { ": \($0)" } ?? "")) }
        if let sync, sync.failures > 0 {
            problems.append("delivery failed \(sync.failures) times" + (sync.lastError.map { ": \($0)" } ?? ""))
        }
        if !exposed.isEmpty { problems.append("others can read the data directory: see capture status") }
        return problems
    }

    /// `12.3 MiB`.
    static func bytes(_ count: Int64) -> String {
        count < 1024 * 1024 ? String(format: "%.0f KiB", Double(count) / 1024) : String(format: "%.1f MiB", Double(count) / 1_048_576)
    }
}
