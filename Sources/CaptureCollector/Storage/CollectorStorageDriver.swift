/// Where the collector keeps the bytes it receives: the partial data of each open upload session
/// and the uploads it completed, with their metadata.
///
/// The routes (``Collector``) and the session table (``CollectorSessions``) reach storage only
/// through this protocol, as Hummingbird's persist routes reach a `PersistDriver`. Two
/// implementations, no more: ``CollectorStorage`` (files in the data directory, the one the
/// collector runs with) and ``MemoryCollectorStorage`` (in memory, for in-process route tests).
/// docs/architecture.md ("Add a collector storage backend") says how to add a third.
///
/// Sessions themselves (their ids, claims, expiry, the limit on open ones, which uploads are
/// stored) are not storage: ``CollectorSessions`` keeps them in memory over any driver, so a
/// restarted collector forgets its open sessions whatever the backend; a driver is asked for the
/// uploads it holds once, at start. Every session id is made by the collector (32 characters of
/// `[a-z0-9]`), so a driver may use it as a name; nothing else from a request is.
protocol CollectorStorageDriver: Sendable {
    /// The ``CollectorMetadata/storageKey`` of every upload stored by an earlier run. Asked
    /// once, at start; partial data of an earlier run is gone by then (it cannot be resumed).
    func storedKeys() throws -> Set<String>

    /// The bytes of session `sid` received so far; `nil` when there are none (nothing arrived
    /// yet, or they were discarded). Called while another request appends: it answers what has
    /// arrived until now.
    func received(_ sid: String) -> Int64?

    /// Opens the partial data of session `sid` for appending, creating it; throws when it
    /// cannot be opened. What was written stays when the upload breaks off, so that it can be
    /// resumed from there. (A writer rather than a closure taking the body: Swift 6.3.1's
    /// optimiser crashed on an async closure through this existential in release builds.)
    func appending(to sid: String) throws -> any PartialDataWriter

    /// The partial data of session `sid`, whole (to validate a complete upload before storing it).
    func contents(of sid: String) throws -> [UInt8]

    /// Drops the partial data of session `sid`, if there is any.
    func discard(_ sid: String)

    /// Stores the partial data of session `sid` (`size` bytes) as a completed upload with its
    /// metadata, all or nothing: an upload counts as stored once this returns, and is never seen
    /// half-stored by a later run. The session table has checked that it is not stored yet.
    func store(_ sid: String, metadata: CollectorMetadata, size: Int64) throws

    /// Records one line about a PUT (`<sid> <from>-<to>/<total> <status>`, or `<sid> */<total>
    /// <status>` for a status query), so that tests see where a resumed upload started.
    func log(_ line: String)
}

extension CollectorMetadata {
    /// `device/measurement`, or `device/measurement/attachment`: what a stored upload is known by.
    var storageKey: String {
        parentKey + (attachmentID.map { "/\($0)" } ?? "")
    }

    /// The ``storageKey`` of the measurement an attachment belongs to (of the measurement itself
    /// for a measurement).
    var parentKey: String { deviceID + "/" + String(measurementID) }
}

/// Appends the pieces of one upload's body to its session's partial data, in order; done when
/// released.
protocol PartialDataWriter: AnyObject {
    /// Appends `bytes` whole, or throws.
    func write(_ bytes: UnsafeRawBufferPointer) throws
}
