import CaptureCore
import CaptureStorage
import CaptureTransfer
import Foundation

/// Persists the session and acknowledgements as the uploader reports them, before it sends
/// more, and passes progress on: to the measurement's `upload` row or the attachment's row.
struct StoreObserver: UploadObserver {
    enum Target {
        case measurement(Int64)
        case attachment(Int64)
    }

    let store: Store
    let target: Target
    let file: TransferFile
    let hash: SessionHash
    let run: any UploadRunObserver

    func sessionChanged(_ url: String?) throws {
        try hash.withHash { sha256 in
            switch target {
            case .measurement(let id): try store.beginUpload(of: id, sessionURL: url, totalLength: file.size, sha256: sha256)
            case .attachment(let id):
                try store.beginAttachmentUpload(id, sessionURL: url, totalLength: file.size, sha256: sha256 ?? file.sha256)
            }
        }
    }

    func acknowledged(_ bytes: Int64) throws {
        switch target {
        case .measurement(let id): try store.acknowledgeUpload(of: id, bytes: bytes)
        case .attachment(let id): try store.acknowledgeAttachment(id, bytes: bytes)
        }
        run.transferAcknowledged(bytes)
    }

    func sent(_ bytes: Int64) { run.transferSent(bytes) }

    func retrying(after milliseconds: Int64, problem: String) {
        // Accounting only (per measurement): a retry that cannot be counted is still made.
        if case .measurement(let id) = target { try? store.noteUploadRetry(of: id) }
        run.transferRetrying(after: milliseconds, problem: problem)
    }
}

/// The hash stored with an upload's session: known before the upload, or being computed beside
/// it (``BackgroundHash``).
enum SessionHash: Sendable {
    case known(String)
    case pending(BackgroundHash)

    /// The hash if it was known before the upload began.
    var known: String? {
        if case .known(let hash) = self { hash } else { nil }
    }

    /// Runs `body` with the hash as known now, so that a store write of it cannot pass the
    /// background hash's own.
    func withHash<T>(_ body: (String?) throws -> T) rethrows -> T {
        switch self {
        case .known(let hash): try body(hash)
        case .pending(let background): try background.withHash(body)
        }
    }

    /// Waits for a background hash to end.
    func wait() {
        if case .pending(let background) = self { background.wait() }
    }
}
