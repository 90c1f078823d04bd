import CaptureCore
import CaptureSensors
import CaptureStorage
package import Foundation
import Glibc
import SystemPackage

/// What a background recorder tells the process that launched it, once: one JSON line on the
/// readiness pipe (fd 3 of `capture _record`), then the pipe is closed.
///
/// `{"ready":{"measurement":7}}` once capturing has begun, or
/// `{"failed":{"_0":{"kind":"diskFull","message":"…"}}}` if it could not begin.
package enum Readiness: Codable, Sendable, Equatable {
    /// Capturing has begun for `measurement`.
    case ready(measurement: Int64)
    /// The recorder could not begin and is exiting.
    case failed(LaunchFailure)

    /// The line as written on the pipe (without its newline).
    package func encoded() -> Data {
        (try? JSONEncoder().encode(self)) ?? Data()
    }

    /// Reads a line written by ``encoded()``; `nil` for anything else (an empty pipe: the
    /// recorder died before it could say).
    package init?(decoding line: Data) {
        guard let value = try? JSONDecoder().decode(Readiness.self, from: line) else { return nil }
        self = value
    }
}

/// Why a recorder could not begin (or, from ``RecorderLauncher``, could not be started), as a
/// kind of fault the command line maps to its exit code, and a line for a person.
package struct LaunchFailure: Error, Codable, Sendable, Equatable, CustomStringConvertible {
    /// The kind of fault; the raw values are what crosses the readiness pipe.
    package enum Kind: String, Codable, Sendable, Equatable, CaseIterable {
        /// Another recorder holds the data directory.
        case recorderRunning
        /// A measurement is open already (``LifecycleError/alreadyStarted(state:)``,
        /// ``StoreError/alreadyOpen(_:)``).
        case measurementOpen
        /// `--recover` found no open measurement.
        case notOpen
        /// A `--source` spec is malformed or names an unusable device (``SourceError``).
        case badSource
        /// A trace, device, receiver or measurement that does not exist.
        case notFound
        /// A trace or device attribute with content that cannot be used.
        case malformedInput
        /// A device that cannot be opened or configured (not a permission problem).
        case deviceUnavailable
        /// The disk (or `--max-store-size`) is full; nothing committed was lost.
        case diskFull
        /// The store, a file or a device could not be read or written.
        case io
        /// The recorder process could not be started, or ended without saying why.
        case notStarted
        /// Anything else.
        case unexpected
    }

    /// What went wrong, for the exit code.
    package var kind: Kind
    /// One line for a person (the underlying error's description).
    package var message: String

    /// A failure of `kind`, described by `message`.
    package init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    /// Classifies an error thrown while a recorder begins.
    package init(_ error: any Error) {
        message = "\(error)"
        switch error {
        case let error as LaunchFailure:
            self = error
        case let error as LifecycleError:
            switch error {
            case .alreadyStarted: kind = .measurementOpen
            case .notOpen: kind = .notOpen
            case .notCapturing, .notPaused: kind = .unexpected
            }
        case let error as StoreError:
            switch error {
            case .measurementNotFound: kind = .notFound
            case .alreadyOpen: kind = .measurementOpen
            case .diskFull: kind = .diskFull
            case .cannotOpen, .writeFailed, .corrupt, .busy, .database: kind = .io
            }
        case let error as SourceError:
            switch error {
            case .unknownKind, .malformed, .badAddress, .badRate, .notADeviceDirectory, .notUseful: kind = .badSource
            case .noDevice, .noReceiver, .nothingFound: kind = .notFound
            case .unreadableDevice: kind = .malformedInput
            case .trace(let trace): kind = Self.kind(of: trace)
            }
        case let error as TraceFileError:
            kind = Self.kind(of: error)
        case let error as DeviceError:
            kind = error.isPermission ? .io : .deviceUnavailable
        case is RuntimeDirectoryError:
            kind = .io
        default:
            kind = .unexpected
        }
    }

    private static func kind(of error: TraceFileError) -> Kind {
        switch error {
        case .cannotOpen: .notFound
        case .readFailed: .io
        case .malformed: .malformedInput
        }
    }

    package var description: String { message }
}

/// The write end of a readiness pipe, in the recorder process.
package struct ReadinessPipe: Sendable {
    /// The file descriptor (3 for `capture _record`, see ``RecorderLauncher``).
    package let descriptor: Int32

    /// The pipe on `descriptor`, which ``report(_:)`` closes.
    package init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Writes `readiness` as one line and closes the pipe.
    package func report(_ readiness: Readiness) {
        _ = try? FileDescriptor(rawValue: descriptor).writeAll(Array(readiness.encoded()) + [0x0A])
        close(descriptor)
    }
}
