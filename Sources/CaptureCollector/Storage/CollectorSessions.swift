import Foundation
import Synchronization

/// The collector's upload sessions and the uploads it holds, in memory, over a storage driver
/// that keeps their bytes (``CollectorStorageDriver``).
///
/// Sessions live in memory only: partial data of a previous run can never be resumed. Which
/// uploads are stored is read from the driver once, at start, and kept here, so that a
/// pre-request for a stored measurement gets 409 and two sessions for the same measurement
/// cannot both store it (``complete(_:metadata:size:)`` reserves the key under the lock).
final class CollectorSessions: Sendable {
    struct Session: Sendable {
        var metadata: CollectorMetadata
        var total: Int64
        /// Bytes of partial data; nil when there is none.
        var received: Int64?
        var lastActive: ContinuousClock.Instant
        var completed = false
        /// A PUT is writing to this session right now.
        var busy = false
    }

    private struct State {
        var sessions: [String: Session] = [:]
        /// ``CollectorMetadata/storageKey`` of every stored upload.
        var stored: Set<String> = []
    }

    /// Where the bytes are.
    let storage: any CollectorStorageDriver
    let expiry: Duration
    private let state = Mutex(State())

    init(storage: any CollectorStorageDriver, expiry: Duration) throws {
        self.storage = storage
        self.expiry = expiry
        let stored = try storage.storedKeys()
        state.withLock { $0.stored = stored }
    }

    func isStored(_ metadata: CollectorMetadata) -> Bool {
        state.withLock { $0.stored.contains(metadata.storageKey) }
    }

    /// Whether the measurement an attachment belongs to is stored (§2.8: required first).
    func isParentStored(_ metadata: CollectorMetadata) -> Bool {
        state.withLock { $0.stored.contains(metadata.parentKey) }
    }

    /// The metadata of an open session, for the request log; changes nothing.
    func metadata(of sid: String) -> CollectorMetadata? {
        state.withLock { $0.sessions[sid]?.metadata }
    }

    /// Opens a session and returns its id, unless `limit` sessions are open already (expired
    /// ones are dropped first; completed ones do not count): nil then. Counted and opened under
    /// one lock, so that pre-requests at once cannot pass the limit together.
    func open(_ metadata: CollectorMetadata, total: Int64, limit: Int) -> String? {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)
        let sid = String(
            decoding: (0..<32).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }, as: UTF8.self)
        let now = ContinuousClock.now
        let opened: Bool = state.withLock { state in
            for (sid, session) in state.sessions where !session.busy && now - session.lastActive > expiry {
                state.sessions[sid] = nil
                storage.discard(sid)
            }
            guard state.sessions.values.filter({ !$0.completed }).count < limit else { return false }
            state.sessions[sid] = Session(metadata: metadata, total: total, received: nil, lastActive: now)
            return true
        }
        return opened ? sid : nil
    }

    enum Lookup {
        case found(Session)
        /// Another PUT still writes to the session. A connection its client gave up on (a link
        /// that went down) ends only when the client's close arrives or the idle timeout fires.
        case busy
        case unknown
    }

    /// The session, claimed for writing when `claim` is set (waiting up to 5 s for another
    /// PUT to the same session to finish, then ``Lookup/busy``). A status query (no claim) does
    /// not wait: it sees what has arrived so far, as the partial data's size. Expired sessions
    /// are removed and reported unknown.
    func session(_ sid: String, claim: Bool, expire: Bool = false) async -> Lookup {
        for _ in 0..<500 {
            let result: Lookup? = state.withLock { state in
                guard var session = state.sessions[sid] else { return .unknown }
                if expire || (!session.busy && ContinuousClock.now - session.lastActive > expiry) {
                    state.sessions[sid] = nil
                    storage.discard(sid)
                    return .unknown
                }
                if session.busy {
                    guard claim else {
                        session.received = storage.received(sid)
                        return .found(session)
                    }
                    return nil
                }
                session.lastActive = .now
                if claim { session.busy = true }
                state.sessions[sid] = session
                return .found(session)
            }
            if let result { return result }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return .busy
    }

    /// Ends a claim, recording how many bytes the partial data now has.
    func release(_ sid: String, received: Int64?) {
        state.withLock { state in
            state.sessions[sid]?.busy = false
            state.sessions[sid]?.received = received
            state.sessions[sid]?.lastActive = .now
        }
    }

    /// Forgets a session and its partial data.
    func destroy(_ sid: String) {
        _ = state.withLock { $0.sessions.removeValue(forKey: sid) }
        storage.discard(sid)
    }

    /// Stores a complete upload (``CollectorStorageDriver/store(_:metadata:size:)``). Returns
    /// false (and discards the data) if the same upload was stored meanwhile.
    func complete(_ sid: String, metadata: CollectorMetadata, size: Int64) throws -> Bool {
        let key = metadata.storageKey
        let duplicate = state.withLock { state in
            if state.stored.contains(key) { return true }
            state.stored.insert(key)  // reserve: a parallel session for the same ids gets 409
            return false
        }
        if duplicate {
            destroy(sid)
            return false
        }
        do {
            try storage.store(sid, metadata: metadata, size: size)
        } catch {
            _ = state.withLock { $0.stored.remove(key) }
            throw error
        }
        state.withLock { state in
            state.sessions[sid]?.completed = true
            state.sessions[sid]?.busy = false
            state.sessions[sid]?.received = nil
        }
        return true
    }
}
