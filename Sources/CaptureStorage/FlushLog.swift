import CZlib
public import CaptureCore
import Foundation
import Glibc

/// The flush log (`capture.flushlog`): where live capture makes each flush durable between
/// database transactions.
///
/// A flush committed to SQLite every second costs far more writing than its data: the commit
/// rewrites whole 4 KiB pages (the last leaf of every table it appends to, their indexes, the
/// header page), and writes them twice (the journal and the database; the WAL and the
/// checkpoint, in WAL mode). In the log a flush of
/// samples is one record, written at the next 4 KiB boundary, and one `fdatasync`: a flush
/// under 4 KiB dirties one page. The samples go on to the database in larger transactions
/// (``StagedCommits``), each of which also stores the sequence number of the last record it
/// holds; records at or below it are spent.
///
/// The file is written from its start again after every such transaction, so it never grows
/// beyond the longest stretch between two of them and, allocated beforehand (``reserve(_:)``),
/// a record costs one page. The live
/// records are found from offset 0: records at 4 KiB boundaries, each the next sequence number
/// with a valid checksum; the first that is not ends the log. Since every transaction takes all
/// records up to the newest, a spent first record means that nothing is pending.
///
/// A record (little-endian): `CFL1`, sequence (u64), measurement (i64), payload length (u32),
/// CRC-32 of those 24 bytes and the payload (u32), payload. The payload: track (u32); batch count
/// (u32) and per batch sensor (u8), first and last time (i64), sample count (u32), length (u32),
/// bytes; fix count (u32) and per fix time (i64), latitude, longitude (f64), a mask of the
/// optional fields present (u16) and those (f64; satellites i64, mode u8); pressure count (u32)
/// and per sample time (i64), hPa (f64).
///
/// A flush with lifecycle events (a command: pause, resume, modality, stop) is a record of its
/// own kind, `CFL2`: the same payload, then the lifecycle state once it is applied (phase u8:
/// 0 idle, 1 capturing, 2 paused, 3 finished; track u32), the modality (a string) and the events
/// (count u32, per event time i64, type u8, value a string); a string is its length (u32,
/// `0xFFFFFFFF` for none) and its UTF-8 bytes. Its events wait here, durable, when the database
/// is busy, and go in with the next commit after the samples staged before them, as samples do.
///
/// A record that also asks the store for more than its flush (``Step``: a ride's measurement
/// begun under a reserved id, a ride counted or discarded, a measurement moved onto GNSS time)
/// is a `CFL3`: the `CFL2` payload (its event count may be 0) followed by its steps
/// (`FlushLog+Steps.swift`), so that with `ride.detect: auto` a ride's begin and end wait here
/// for a busy database as a command's events do.
///
/// One writer at a time: the recorder holds an exclusive `flock` on the file while it records;
/// any other process may apply what a dead recorder left (``Store/applyFlushLog(wait:dropping:)``).
public final class FlushLog {
    /// One record: a flush of a measurement, its samples and (a `CFL2` record) its events.
    public struct Record: Sendable {
        public var sequence: UInt64
        public var measurement: Int64
        public var flush: EncodedFlush
        /// What the record asks of the store besides its flush, in order (a `CFL3` record).
        public var steps: [Step] = []

        /// Whether it carries lifecycle events or steps: what must not wait for a staging limit.
        var carriesEvents: Bool { !flush.flush.events.isEmpty || !steps.isEmpty }
    }

    public static let fileName = "capture.flushlog"
    /// Records start at multiples of this.
    static let alignment = 4096
    static let headerSize = 28
    static let magic: [UInt8] = Array("CFL1".utf8)
    /// The magic of a record that carries events.
    static let eventsMagic: [UInt8] = Array("CFL2".utf8)
    /// The magic of a record that carries steps (and maybe events).
    static let stepsMagic: [UInt8] = Array("CFL3".utf8)

    /// What a record carries besides samples.
    enum Kind {
        case samples, events, steps
    }

    /// The kind of record `header` starts, or `nil` where none does.
    static func kind(_ header: [UInt8]) -> Kind? {
        switch Array(header.prefix(4)) {
        case magic: .samples
        case eventsMagic: .events
        case stepsMagic: .steps
        default: nil
        }
    }

    public let path: String
    private let fd: Int32
    /// Where the next record goes.
    public private(set) var offset = 0

    /// Opens (creating, 0600) the log of `directory` and locks it; `nil` when `wait` is false
    /// and another process holds it.
    public init?(directory: String, wait: Bool) throws(StoreError) {
        path = (directory as NSString).appendingPathComponent(Self.fileName)
        let fd = PrivateFiles.open(path, O_RDWR)
        guard fd >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        while flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) != 0 {
            if errno == EINTR { continue }
            let error = errno
            close(fd)
            if error == EWOULDBLOCK { return nil }
            throw .cannotOpen(path: path, reason: String(cString: strerror(error)))
        }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Whether `directory` has a log with a record newer than `applied`: a cheap look (record
    /// headers only, no lock) before taking the lock and reading it all.
    static func mayHavePending(directory: String, after applied: UInt64) -> Bool {
        let path = (directory as NSString).appendingPathComponent(fileName)
        // Non-blocking: something other than a file in its place (a FIFO) must not hang a reader.
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var position = 0
        var expected: UInt64?
        var header = [UInt8](repeating: 0, count: headerSize)
        while pread(fd, &header, headerSize, off_t(position)) == headerSize, kind(header) != nil {
            let (sequence, length) = header.withUnsafeBytes {
                (UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: 4, as: UInt64.self)),
                 Int(UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: 20, as: UInt32.self))))
            }
            if let expected, sequence != expected { break }
            if sequence > applied { return true }
            expected = sequence + 1
            position += rounded(headerSize + length)
        }
        return false
    }

    /// The live records: those from offset 0 with consecutive sequence numbers and valid
    /// checksums, newer than `applied`. The next record appended goes after them (and after
    /// any spent ones before them), so that the chain goes on.
    public func records(after applied: UInt64) throws(StoreError) -> [Record] {
        var records: [Record] = []
        var position = 0
        var expected: UInt64?
        while let (record, length) = try read(at: position) {
            if let expected, record.sequence != expected { break }
            // Records before `applied` in the chain: a transaction that took only some of them
            // (a full store, StagedCommits.commitWhatFits).
            if record.sequence > applied { records.append(record) }
            expected = record.sequence + 1
            position += Self.rounded(length)
        }
        offset = position
        return records
    }

    /// Appends a record at the next boundary and makes it durable.
    public func append(_ flush: EncodedFlush, steps: [Step] = [], sequence: UInt64, measurement: Int64) throws(StoreError) {
        let bytes = Self.encode(flush, steps: steps, sequence: sequence, measurement: measurement)
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress! + written, bytes.count - written, off_t(offset + written)) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Self.failure(errno, path: path)
            }
            written += count
        }
        while fdatasync(fd) != 0 {
            if errno != EINTR { throw Self.failure(errno, path: path) }
        }
        offset += Self.rounded(bytes.count)
    }

    /// Starts again at offset 0: every record written so far is in the database.
    public func rewind() { offset = 0 }

    /// Ends the log at offset 0 (its first header zeroed, durably): every record written so
    /// far is in the database, durably. The file keeps its size and blocks.
    public func clear() throws(StoreError) {
        let zeros = [UInt8](repeating: 0, count: Self.headerSize)
        while pwrite(fd, zeros, zeros.count, 0) < 0 {
            if errno != EINTR { throw Self.failure(errno, path: path) }
        }
        while fdatasync(fd) != 0 {
            if errno != EINTR { throw Self.failure(errno, path: path) }
        }
        offset = 0
    }

    /// Allocates the file's first `size` bytes, if it is shorter. A record that extends the
    /// file costs ext4 two dirty pages rather than one (measured: /proc/PID/io `write_bytes`
    /// of an appending writer); one written into allocated space, one. Best effort: a file
    /// system without `fallocate` just grows as it is written.
    public func reserve(_ size: Int) {
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_size < size else { return }
        _ = posix_fallocate(fd, 0, off_t(size))
    }

    /// A failed write or `fdatasync`. Never retried (but for EINTR): after an EIO, Linux marks
    /// the unwritten pages clean, so a second `fdatasync` would succeed without them
    /// (PostgreSQL's "fsyncgate"). The recorder stops on it and commits what it holds in memory.
    private static func failure(_ code: Int32, path: String) -> StoreError {
        code == ENOSPC || code == EDQUOT ? .diskFull(path: path) : .writeFailed(path: path, reason: String(cString: strerror(code)))
    }

    static func rounded(_ length: Int) -> Int { (length + alignment - 1) / alignment * alignment }

    /// The record at `position` and its length in bytes, or nil where none is.
    private func read(at position: Int) throws(StoreError) -> (Record, Int)? {
        var header = [UInt8](repeating: 0, count: Self.headerSize)
        guard pread(fd, &header, Self.headerSize, off_t(position)) == Self.headerSize, let kind = Self.kind(header)
        else { return nil }
        var reader = Reader(header)
        reader.skip(4)
        let sequence = reader.u64()
        let measurement = Int64(bitPattern: reader.u64())
        let length = Int(reader.u32())
        let checksum = reader.u32()
        // A damaged length must not make a huge allocation: the record has to fit in the file.
        var status = stat()
        guard fstat(fd, &status) == 0, length <= Int(status.st_size) - position - Self.headerSize else { return nil }
        var payload = [UInt8](repeating: 0, count: length)
        guard length == 0 || pread(fd, &payload, length, off_t(position + Self.headerSize)) == length else { return nil }
        var crc = crc32(0, header, 24)
        crc = payload.withUnsafeBufferPointer { crc32(crc, $0.baseAddress, uInt($0.count)) }
        guard UInt32(crc) == checksum, let (flush, steps) = Self.decode(payload, kind: kind) else { return nil }
        return (Record(sequence: sequence, measurement: measurement, flush: flush, steps: steps), Self.headerSize + length)
    }

    // MARK: - Encoding

    static func encode(_ encoded: EncodedFlush, steps: [Step] = [], sequence: UInt64, measurement: Int64) -> [UInt8] {
        var payload = Writer()
        let flush = encoded.flush
        payload.u32(UInt32(flush.track))
        payload.u32(UInt32(encoded.batches.count))
        for batch in encoded.batches {
            payload.bytes.append(UInt8(batch.sensor.rawValue))
            payload.i64(batch.firstTimestamp)
            payload.i64(batch.lastTimestamp)
            payload.u32(UInt32(batch.count))
            payload.u32(UInt32(batch.data.count))
            payload.bytes += batch.data
        }
        payload.u32(UInt32(flush.fixes.count))
        for fix in flush.fixes {
            payload.i64(fix.timestamp)
            payload.f64(fix.latitude)
            payload.f64(fix.longitude)
            let optional = [fix.altitude, fix.horizontalAccuracy, fix.verticalAccuracy, fix.speed, fix.course, fix.hdop, fix.vdop, fix.pdop]
            var mask: UInt16 = 0
            for (bit, value) in optional.enumerated() where value != nil { mask |= 1 << bit }
            if fix.satellites != nil { mask |= 1 << 8 }
            if fix.mode != nil { mask |= 1 << 9 }
            payload.u16(mask)
            for value in optional { if let value { payload.f64(value) } }
            if let satellites = fix.satellites { payload.i64(Int64(satellites)) }
            if let mode = fix.mode { payload.bytes.append(UInt8(mode.rawValue)) }
        }
        payload.u32(UInt32(flush.pressures.count))
        for pressure in flush.pressures {
            payload.i64(pressure.timestamp)
            payload.f64(pressure.hectopascals)
        }
        let withEvents = !flush.events.isEmpty || !steps.isEmpty
        if withEvents {
            let phase: UInt8 =
                switch flush.state {
                case .idle: 0
                case .capturing: 1
                case .paused: 2
                case .finished: 3
                }
            payload.bytes.append(phase)
            payload.u32(UInt32(flush.state.track))
            payload.string(flush.modality?.rawValue)
            payload.u32(UInt32(flush.events.count))
            for event in flush.events {
                payload.i64(event.timestamp)
                payload.bytes.append(UInt8(event.type.rawValue))
                payload.string(event.value)
            }
        }
        if !steps.isEmpty { encode(steps, into: &payload) }
        var record = Writer()
        record.bytes = !steps.isEmpty ? stepsMagic : withEvents ? eventsMagic : magic
        record.u64(sequence)
        record.i64(measurement)
        record.u32(UInt32(payload.bytes.count))
        var crc = crc32(0, record.bytes, 24)
        crc = payload.bytes.withUnsafeBufferPointer { crc32(crc, $0.baseAddress, uInt($0.count)) }
        record.u32(UInt32(crc))
        record.bytes += payload.bytes
        return record.bytes
    }

    /// The flush in a record's payload and its steps; `kind`: the record's, `CFL2` with events,
    /// `CFL3` with steps (and events, if any).
    static func decode(_ payload: [UInt8], kind: Kind = .samples) -> (EncodedFlush, [Step])? {
        var reader = Reader(payload)
        let track = Int(reader.u32())
        var batches: [EncodedFlush.Batch] = []
        for _ in 0..<reader.count(atLeast: 25) {
            guard let sensor = MotionSensor(rawValue: Int(reader.u8())) else { return nil }
            let first = reader.i64()
            let last = reader.i64()
            let count = Int(reader.u32())
            let data = reader.bytes(Int(reader.u32()))
            batches.append(.init(sensor: sensor, firstTimestamp: first, lastTimestamp: last, count: count, data: data))
        }
        var fixes: [Fix] = []
        for _ in 0..<reader.count(atLeast: 26) {
            var fix = Fix(timestamp: reader.i64(), latitude: reader.f64(), longitude: reader.f64())
            let mask = reader.u16()
            func optional(_ bit: Int) -> Double? { mask & (1 << bit) != 0 ? reader.f64() : nil }
            fix.altitude = optional(0)
            fix.horizontalAccuracy = optional(1)
            fix.verticalAccuracy = optional(2)
            fix.speed = optional(3)
            fix.course = optional(4)
            fix.hdop = optional(5)
            fix.vdop = optional(6)
            fix.pdop = optional(7)
            if mask & (1 << 8) != 0 { fix.satellites = Int(reader.i64()) }
            if mask & (1 << 9) != 0 {
                guard let mode = FixMode(rawValue: Int(reader.u8())) else { return nil }
                fix.mode = mode
            }
            fixes.append(fix)
        }
        var pressures: [PressureSample] = []
        for _ in 0..<reader.count(atLeast: 16) {
            pressures.append(PressureSample(timestamp: reader.i64(), hectopascals: reader.f64()))
        }
        var decoded = EncodedFlush(track: track, batches: batches, fixes: fixes, pressures: pressures)
        var steps: [Step] = []
        if kind != .samples {
            let phase = reader.u8()
            let stateTrack = Int(reader.u32())
            let state: Lifecycle.State
            switch phase {
            case 0: state = .idle
            case 1: state = .capturing(track: stateTrack)
            case 2: state = .paused(track: stateTrack)
            case 3: state = .finished(tracks: stateTrack)
            default: return nil
            }
            var modality: Modality?
            if let name = reader.string() {
                guard let known = Modality(rawValue: name) else { return nil }
                modality = known
            }
            var events: [Event] = []
            for _ in 0..<reader.count(atLeast: 13) {
                let time = reader.i64()
                guard let type = EventType(rawValue: Int(reader.u8())) else { return nil }
                events.append(Event(timestamp: time, type: type, value: reader.string()))
            }
            if kind == .steps {
                guard let decodedSteps = decodeSteps(&reader), !decodedSteps.isEmpty else { return nil }
                steps = decodedSteps
            } else if events.isEmpty {
                return nil
            }
            if !events.isEmpty { decoded.carry(events, state: state, modality: modality) }
        }
        guard reader.isComplete else { return nil }
        return (decoded, steps)
    }

    struct Writer {
        var bytes: [UInt8] = []
        mutating func u16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        mutating func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        mutating func u64(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        mutating func i64(_ value: Int64) { u64(UInt64(bitPattern: value)) }
        mutating func f64(_ value: Double) { u64(value.bitPattern) }
        mutating func string(_ value: String?) {
            guard let value else { return u32(.max) }
            let utf8 = Array(value.utf8)
            u32(UInt32(utf8.count))
            bytes += utf8
        }
    }

    /// Reads what ``Writer`` wrote; past the end it reads zeros and remembers the overrun.
    struct Reader {
        let bytes: [UInt8]
        var position = 0
        var overrun = false
        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var isComplete: Bool { !overrun && position == bytes.count }
        mutating func skip(_ count: Int) { position += count }
        mutating func bytes(_ count: Int) -> [UInt8] {
            guard count <= bytes.count - position else {
                overrun = true
                position = bytes.count
                return []
            }
            defer { position += count }
            return Array(bytes[position..<position + count])
        }
        mutating func integer<T: FixedWidthInteger>(_: T.Type) -> T {
            let size = MemoryLayout<T>.size
            guard size <= bytes.count - position else {
                overrun = true
                position = bytes.count
                return 0
            }
            defer { position += size }
            return bytes.withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: position, as: T.self)) }
        }
        mutating func u8() -> UInt8 { integer(UInt8.self) }
        mutating func u16() -> UInt16 { integer(UInt16.self) }
        mutating func u32() -> UInt32 { integer(UInt32.self) }
        mutating func u64() -> UInt64 { integer(UInt64.self) }
        mutating func i64() -> Int64 { Int64(bitPattern: u64()) }
        mutating func f64() -> Double { Double(bitPattern: u64()) }
        mutating func string() -> String? {
            let length = u32()
            guard length != .max else { return nil }
            return String(decoding: bytes(Int(length)), as: UTF8.self)
        }
        /// A count read from the payload, bounded by what the rest could hold at `atLeast` bytes
        /// an element, so that a damaged count cannot make a huge loop.
        mutating func count(atLeast size: Int) -> Int {
            let count = Int(u32())
            return min(count, (bytes.count - position) / size)
        }
    }
}
