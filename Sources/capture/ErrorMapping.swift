import ArgumentParser
import CaptureCore
import Foundation

/// An error the command line raises itself, with its documented exit status and the one line
/// printed after `capture: `.
protocol CLIReportable: Error {
    /// The exit code this error ends the command with.
    var exitStatus: ExitStatus { get }
    /// One line: what happened and what to do.
    var cliMessage: String { get }
}

/// A library error's line with the advice a person at a shell needs (which command to run).
/// Libraries describe the fault and say its ``FaultKind``; the conformances, one file per
/// library (`ErrorMapping+Storage.swift`, …), add the advice. Without one, the line is the
/// error's description.
protocol CLIAdvised: KindedError {
    var cliMessage: String { get }
}

/// An error the CLI reports as one line on stderr with a documented exit code.
struct CLIError: CLIReportable {
    var status: ExitStatus
    var message: String

    init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    var exitStatus: ExitStatus { status }
    var cliMessage: String { message }

    /// Maps any error to its exit code and message, once: a library error by its kind, with the
    /// advice for it; an error no library classified is exit 1.
    static func from(_ error: any Error) -> CLIError {
        if let reportable = error as? any CLIReportable {
            return CLIError(reportable.exitStatus, reportable.cliMessage)
        }
        if let kinded = error as? any KindedError {
            return CLIError(ExitStatus(kinded.faultKind), (error as? any CLIAdvised)?.cliMessage ?? "\(error)")
        }
        return CLIError(.failure, "\(error)")
    }
}
