import Foundation

/// What the powercut shim (`scripts/powercut/powercut.c`) journalled: every call that changed a
/// file or a name under the watched directory, in the order the calls happened, across every
/// process that ran with the shim.
struct PowerJournal {
    /// One journalled call.
    struct Entry {
        enum Kind: UInt8 {
            case write = 0x57  // W: bytes at an offset
            case truncate = 0x54  // T: the size set
            case extend = 0x41  // A: fallocate, the size at least
            case sync = 0x53  // S: fsync/fdatasync of a file
            case directorySync = 0x44  // D: fsync of a directory
            case syncAll = 0x47  // G: sync(), syncfs()
            case syncFailed = 0x45  // E: an fsync/fdatasync of a file that failed
            case create = 0x43  // C
            case makeDirectory = 0x4D  // M
            case rename = 0x52  // R: path → path2
            case unlink = 0x55  // U
            case removeDirectory = 0x58  // X
        }

        var kind: Kind
        var pid: Int32
        var inode: UInt64
        var offset: Int64
        var length: Int64
        /// Absolute paths as the process named them.
        var path: String
        var path2: String
        /// Where a write's bytes are in ``PowerJournal/bytes``.
        var data: Range<Int>
    }

    static let headerSize = 48

    let bytes: [UInt8]
    let entries: [Entry]

    init(path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CampaignError("cannot read the power-cut journal \(path)")
        }
        bytes = [UInt8](data)
        var entries: [Entry] = []
        var position = 0
        try bytes.withUnsafeBytes { raw in
            while position + Self.headerSize <= raw.count {
                func load<T: FixedWidthInteger>(_ offset: Int, _: T.Type) -> T {
                    raw.loadUnaligned(fromByteOffset: position + offset, as: T.self)
                }
                let size = Int(load(0, UInt32.self))
                let pathLength = Int(load(40, UInt32.self))
                let path2Length = Int(load(44, UInt32.self))
                guard size >= Self.headerSize + pathLength + path2Length, position + size <= raw.count,
                    let kind = Entry.Kind(rawValue: load(4, UInt8.self))
                else { throw CampaignError("the power-cut journal \(path) is damaged at byte \(position)") }
                let pathStart = position + Self.headerSize
                let text = { (from: Int, count: Int) in
                    String(decoding: UnsafeRawBufferPointer(rebasing: raw[from..<from + count]), as: UTF8.self)
                }
                entries.append(
                    Entry(
                        kind: kind, pid: load(8, Int32.self), inode: load(16, UInt64.self), offset: load(24, Int64.self),
                        length: load(32, Int64.self), path: text(pathStart, pathLength),
                        path2: text(pathStart + pathLength, path2Length),
                        data: (pathStart + pathLength + path2Length)..<(position + size)))
                position += size
            }
        }
        guard position == bytes.count else { throw CampaignError("the power-cut journal \(path) ends inside a record") }
        self.entries = entries
    }
}
