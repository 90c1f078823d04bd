import ArgumentParser
import Foundation

/// A library error the command line knows how to report: its documented exit status and the one
/// line printed after `capture: `. Libraries describe the fault; the conformances, one file per
/// library (`ErrorMapping+Storage.swift`, …), add the advice a person at a shell needs.
protocol CLIReportable: Error {
    /// The exit code this error ends the command with.
    var exitStatus: ExitStatus { get }
    /// One line: what happened and what to do.
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

    /// Maps any error to its exit code and message; an error no library declared is exit 1.
    static func from(_ error: any Error) -> CLIError {
        if let reportable = error as? any CLIReportable {
            return CLIError(reportable.exitStatus, reportable.cliMessage)
        }
        return CLIError(.failure, "\(error)")
    }
}
