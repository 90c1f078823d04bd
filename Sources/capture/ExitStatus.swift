import ArgumentParser
import CaptureCore
import CaptureRecorder
import CaptureSensors
import CaptureStorage
import Foundation

/// The documented exit codes of `capture`. The README lists the same table.
enum ExitStatus: Int32, CaseIterable {
    case success = 0
    /// Something unexpected; the message says what.
    case failure = 1
    /// `start` while a measurement is open; `export --format cyface` of one that is not finished.
    case alreadyOpen = 3
    /// `pause`, `resume`, `stop` or `modality` with no open measurement.
    case notOpen = 4
    /// `pause` or `modality` while the measurement is paused or interrupted.
    case notCapturing = 5
    /// `resume` while the measurement is capturing.
    case notPaused = 6
    /// Bad arguments (unknown modality, bad option value). ArgumentParser's own usage errors use it too.
    case usage = 64
    /// A malformed input file (trace or transfer file), or stored values a transfer file cannot hold.
    case dataError = 65
    /// A file or measurement that does not exist.
    case notFound = 66
    /// The recorder could not be started or did not answer.
    case unavailable = 69
    /// The disk is full; nothing committed was lost.
    case diskFull = 73
    /// The database or a file could not be read or written.
    case ioError = 74
    /// `upload`: at least one measurement failed or was not found; the others were uploaded.
    case uploadIncomplete = 75
    /// `upload`: the collector rejected the token (401), or the token file is readable by others.
    case tokenRejected = 77
    /// `upload`: no collector URL or token is configured, or upload.json is malformed.
    case configuration = 78

    static let help = """
        EXIT CODES
          0   success
          1   unexpected failure (the message says what)
          3   a measurement is open (start, replay) or not yet finished (export)
          4   no measurement is open
          5   not capturing (paused, or its recorder was interrupted)
          6   not paused
          64  bad arguments
          65  malformed input file (trace, transfer file)
          66  no such file, measurement or sensor
          69  recorder or device unavailable
          73  disk full (nothing committed was lost)
          74  database, file or device I/O error
          75  upload: some measurements failed (the others were uploaded)
          77  upload: token rejected, or token file readable by others
          78  upload: no URL or token configured
        """
}

/// An error the CLI reports as one line on stderr with a documented exit code.
struct CLIError: Error {
    var status: ExitStatus
    var message: String

    init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    /// Maps any library error to its exit code and message.
    static func from(_ error: any Error) -> CLIError {
        switch error {
        case let error as CLIError: return error
        case let error as LifecycleError:
            switch error {
            case .alreadyStarted: return CLIError(.alreadyOpen, error.description)
            case .notOpen: return CLIError(.notOpen, error.description)
            case .notCapturing: return CLIError(.notCapturing, error.description)
            case .notPaused: return CLIError(.notPaused, error.description)
            }
        case let error as StoreError:
            switch error {
            case .measurementNotFound: return CLIError(.notFound, error.description)
            case .alreadyOpen: return CLIError(.alreadyOpen, error.description)
            case .diskFull: return CLIError(.diskFull, error.description)
            default: return CLIError(.ioError, error.description)
            }
        case let error as TransferError:
            switch error {
            case .notFinished: return CLIError(.alreadyOpen, error.description)
            case .unrepresentable: return CLIError(.dataError, error.description)
            case .io: return CLIError(.ioError, error.description)
            }
        case let error as ImportError:
            return CLIError(.dataError, error.description)
        case let error as CyfaceError:
            return CLIError(.dataError, error.description)
        case let error as TraceFileError:
            switch error {
            case .cannotOpen: return CLIError(.notFound, error.description)
            case .readFailed: return CLIError(.ioError, error.description)
            case .malformed: return CLIError(.dataError, error.description)
            }
        case let failure as ControlFailure:
            let status: ExitStatus =
                switch failure.kind {
                case "notOpen": .notOpen
                case "notCapturing": .notCapturing
                case "notPaused": .notPaused
                case "alreadyStarted": .alreadyOpen
                case "badRequest": .usage
                case "diskFull": .diskFull
                default: .ioError
                }
            return CLIError(status, failure.message)
        case let error as DeviceError:
            return CLIError(error.isPermission ? .ioError : .unavailable, error.description)
        default:
            return CLIError(.failure, "\(error)")
        }
    }
}

/// Runs a command body: prints any error as one line on stderr and exits with its code.
func execute(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as ExitCode {
        throw error
    } catch {
        let failure = CLIError.from(error)
        FileHandle.standardError.write(Data("capture: \(failure.message)\n".utf8))
        throw ExitCode(failure.status.rawValue)
    }
}

/// `--data-dir`, shared by every command.
struct DataDirectoryOptions: ParsableArguments {
    @Option(
        name: .customLong("data-dir"),
        help: ArgumentHelp(
            "Where measurements are kept.",
            discussion: "Default: $CAPTURE_HOME, else $XDG_DATA_HOME/capture, else ~/.local/share/capture.",
            valueName: "dir"))
    var dataDirectory: String?

    /// The resolved, absolute data directory.
    var path: String {
        let environment = ProcessInfo.processInfo.environment
        let chosen: String
        if let dataDirectory, !dataDirectory.isEmpty {
            chosen = dataDirectory
        } else if let home = environment["CAPTURE_HOME"], !home.isEmpty {
            chosen = home
        } else if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty {
            chosen = xdg + "/capture"
        } else {
            chosen = (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share/capture"
        }
        return URL(fileURLWithPath: chosen).standardizedFileURL.path
    }

    func openStore(durability: Store.Durability = .everyCommit) throws -> Store {
        try Store(directory: path, durability: durability)
    }
}

/// `--json`, for commands with a machine-readable form.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print JSON instead of text, for scripts.")
    var json = false
}

/// Parses a modality argument or fails with a usage error that lists the choices.
func parseModality(_ text: String) throws -> Modality {
    guard let modality = Modality(parsing: text) else {
        throw CLIError(.usage, "unknown modality '\(text)'; use one of \(Modality.spellings)")
    }
    return modality
}

/// Prints a value as pretty, key-sorted JSON.
func printJSON(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}

extension DataDirectoryOptions {
    /// The store, if the data directory already has one; commands that only read or refuse
    /// create nothing on disk.
    func existingStore() throws -> Store? {
        guard FileManager.default.fileExists(atPath: path + "/capture.sqlite") else { return nil }
        return try openStore()
    }
}
