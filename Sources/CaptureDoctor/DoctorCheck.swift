package import CaptureStorage
import Foundation

/// One check's outcome in a ``Doctor`` report: `pass`, `warn` or `fail`, what was found and,
/// for a problem, what to do. Encoded as `{check, status, detail, advice}` (`capture doctor --json`).
package struct DoctorCheck: Encodable, Sendable, Equatable {
    /// How a check came out.
    package enum Status: String, Encodable, Sendable { case pass, warn, fail }

    /// The check's name: `store`, `source trace:/x.trace`, `token`.
    package var check: String
    /// How it came out.
    package var status: Status
    /// What was found.
    package var detail: String
    /// What to do about a problem; nil for a pass.
    package var advice: String?

    /// Creates a check's outcome.
    package init(check: String, status: Status, detail: String, advice: String? = nil) {
        self.check = check
        self.status = status
        self.detail = detail
        self.advice = advice
    }

    /// A check that passed.
    package static func pass(_ check: String, _ detail: String) -> DoctorCheck { DoctorCheck(check: check, status: .pass, detail: detail) }
    /// A problem that does not keep the device from working.
    package static func warn(_ check: String, _ detail: String, _ advice: String) -> DoctorCheck {
        DoctorCheck(check: check, status: .warn, detail: detail, advice: advice)
    }
    /// A problem to fix.
    package static func fail(_ check: String, _ detail: String, _ advice: String) -> DoctorCheck {
        DoctorCheck(check: check, status: .fail, detail: detail, advice: advice)
    }
}

/// Every check of a ``Doctor`` run and how many came out each way (`capture doctor --json`).
package struct DoctorReport: Encodable, Sendable, Equatable {
    /// The checks, in the order they ran.
    package var checks: [DoctorCheck]
    /// How many passed, warned and failed.
    package var passed: Int
    package var warnings: Int
    package var failed: Int
    /// The medium's figures (`capture doctor --storage`); nil otherwise.
    package var storage: StorageLatency?

    /// The report of `checks`.
    package init(checks: [DoctorCheck]) {
        self.checks = checks
        passed = checks.filter { $0.status == .pass }.count
        warnings = checks.filter { $0.status == .warn }.count
        failed = checks.filter { $0.status == .fail }.count
    }
}
