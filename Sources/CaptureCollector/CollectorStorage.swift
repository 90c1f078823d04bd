import Foundation
import Glibc
import Synchronization

/// The collector's data directory and its in-memory sessions.
///
/// Layout (no part of a request ever becomes a path: files are named by server-made session ids):
/// - `partial/<sid>`: the bytes received so far for an open session;
/// - `measurements/<sid>.ccyf` and `measurements/<sid>.json`: a completed upload and its
///   metadata, each written under a temporary name and then renamed, the JSON last, so a
///   measurement counts as stored exactly when its JSON exists;
/// - `ranges.log`: one line per PUT, `<sid> <from>-<to>/<total> <status>` (or `<sid> */<total>
///   <status>` for status queries), so tests can see where a resumed upload started.
final class CollectorStorage: Sendable {
    struct Session: Sendable {
        var metadata: CollectorMetadata
        var total: Int64
        /// Bytes in `partial/<sid>`; nil when no temp data exists.
        var received: Int64?
        var lastActive: ContinuousClock.Instant
        var completed = false
        /// A PUT is writing to this session right now.
        var busy = false
    }

    private struct State {
        var sessions: [String: Session] = [:]
        /// `deviceId/measurementId` of every stored measurement.
        var stored: Set<String> = []
    }

    let directory: String
    let expiry: Duration
    private let state = Mutex(State())
    private let logLock = Mutex(())

    init(directory: String, expiry: Duration) throws {
        self.directory = directory
        self.expiry = expiry
        let fm = FileManager.default
        for sub in ["partial", "measurements", "attachments"] {
            try fm.createDirectory(atPath: directory + "/" + sub, withIntermediateDirectories: true)
        }
        // Sessions live in memory only: partial data of a previous run can never be resumed.
        for name in try fm.contentsOfDirectory(atPath: directory + "/partial") {
            try? fm.removeItem(atPath: directory + "/partial/" + name)
        }
        var stored: Set<String> = []
        for folder in ["measurements", "attachments"] {
            for name in try fm.contentsOfDirectory(atPath: directory + "/" + folder) {
                let path = directory + "/" + folder + "/" + name
                if name.hasSuffix(".tmp") {
                    try? fm.removeItem(atPath: path)
                } else if name.hasSuffix(".json"), let data = fm.contents(atPath: path),
                    let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                    let device = object["deviceId"] as? String, let measurement = object["measurementId"] as? String
                {
                    stored.insert(device + "/" + measurement + ((object["attachmentId"] as? String).map { "/" + $0 } ?? ""))
                }
            }
        }
        state.withLock { $0.stored = stored }
    }

    func partialPath(_ sid: String) -> String { directory + "/partial/" + sid }

    /// The bytes in `partial/<sid>` now; nil when there are none.
    func received(_ sid: String) -> Int64? {
        var info = stat()
        return stat(partialPath(sid), &info) == 0 ? Int64(info.st_size) : nil
    }

    func isStored(_ metadata: CollectorMetadata) -> Bool {
        state.withLock { $0.stored.contains(Self.key(metadata)) }
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
                try? FileManager.default.removeItem(atPath: partialPath(sid))
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
    /// not wait: it sees what has arrived so far, as the temp file's size. Expired sessions are
    /// removed and reported unknown.
    func session(_ sid: String, claim: Bool, expire: Bool = false) async -> Lookup {
        for _ in 0..<500 {
            let result: Lookup? = state.withLock { state in
                guard var session = state.sessions[sid] else { return .unknown }
                if expire || (!session.busy && ContinuousClock.now - session.lastActive > expiry) {
                    state.sessions[sid] = nil
                    try? FileManager.default.removeItem(atPath: partialPath(sid))
                    return .unknown
                }
                if session.busy {
                    guard claim else {
                        session.received = received(sid)
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

    /// Ends a claim, recording how many bytes the temp file now has.
    func release(_ sid: String, received: Int64?) {
        state.withLock { state in
            state.sessions[sid]?.busy = false
            state.sessions[sid]?.received = received
            state.sessions[sid]?.lastActive = .now
        }
    }

    /// Forgets a session and its temp data.
    func destroy(_ sid: String) {
        _ = state.withLock { $0.sessions.removeValue(forKey: sid) }
        try? FileManager.default.removeItem(atPath: partialPath(sid))
    }

    /// Moves a complete upload into `measurements/`. Returns false (and discards the data) if
    /// the same measurement was stored meanwhile.
    func complete(_ sid: String, metadata: CollectorMetadata, size: Int64) throws -> Bool {
        let key = Self.key(metadata)
        let duplicate = state.withLock { state in
            if state.stored.contains(key) { return true }
            state.stored.insert(key)  // reserve: a parallel session for the same ids gets 409
            return false
        }
        if duplicate {
            destroy(sid)
            return false
        }
        let attachment = metadata.attachmentID != nil
        let base = directory + (attachment ? "/attachments/" : "/measurements/") + sid
        do {
            try Self.rename(partialPath(sid), to: base + (attachment ? ".bin" : ".ccyf"))
            var object = metadata.fields
            object["receivedAt"] = String(Int64(Date().timeIntervalSince1970 * 1000))
            object["size"] = String(size)
            let json = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            try json.write(to: URL(fileURLWithPath: base + ".json.tmp"))
            try Self.rename(base + ".json.tmp", to: base + ".json")
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

    /// Appends one line to `ranges.log`.
    func log(_ line: String) {
        logLock.withLock { _ in
            let path = directory + "/ranges.log"
            let descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { return }
            defer { close(descriptor) }
            let bytes = Array((line + "\n").utf8)
            _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        }
    }

    private static func rename(_ from: String, to: String) throws {
        guard Glibc.rename(from, to) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: to])
        }
    }

    /// `device/measurement`, or `device/measurement/attachment`.
    private static func key(_ metadata: CollectorMetadata) -> String {
        metadata.deviceID + "/" + String(metadata.measurementID) + (metadata.attachmentID.map { "/\($0)" } ?? "")
    }

    /// Whether the measurement an attachment belongs to is stored (§2.8: required first).
    func isParentStored(_ metadata: CollectorMetadata) -> Bool {
        state.withLock { $0.stored.contains(metadata.deviceID + "/" + String(metadata.measurementID)) }
    }
}
