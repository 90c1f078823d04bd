import CaptureCore
import Foundation
import Glibc

/// The files of a directory before the journalled run: what the medium holds at its start.
struct DirectorySnapshot {
    /// Relative path → inode and contents (regular files only: a socket or FIFO holds no data).
    var files: [String: (inode: UInt64, bytes: [UInt8])] = [:]
    /// Relative paths of the directories below the root.
    var directories: Set<String> = []

    /// Reads every regular file and directory under `root`.
    init(root: String) throws {
        guard let walker = FileManager.default.enumerator(atPath: root) else { return }
        while let relative = walker.nextObject() as? String {
            var status = stat()
            guard lstat(root + "/" + relative, &status) == 0 else { continue }
            switch status.st_mode & S_IFMT {
            case S_IFDIR: directories.insert(relative)
            case S_IFREG:
                guard let data = FileManager.default.contents(atPath: root + "/" + relative) else {
                    throw CampaignError("cannot read \(root)/\(relative)")
                }
                files[relative] = (UInt64(status.st_ino), [UInt8](data))
            default: break
            }
        }
    }
}

/// The states a power cut can leave, built from a snapshot and the shim's journal.
///
/// The rules (docs/faults.md, "Power cuts"): a file's writes, truncations and allocations up to
/// its last successful `fsync`/`fdatasync` before the cut are on the medium; each later one is
/// there whole, missing, or torn (only some of its 512-byte sectors written), each on its own,
/// so a later write can be there while an earlier one is missing. A create, rename, unlink,
/// `mkdir` or `rmdir` is on the medium if its directory was fsynced after it (a rename: both
/// directories); of the later ones in a directory, a prefix in their order is there (a journal
/// of the file system's names keeps their order), possibly none. `sync`/`syncfs` makes
/// everything before it durable. A change pending when a sync of its file failed never reaches
/// the medium, even if a later sync succeeds (Linux's behaviour after a writeback error).
///
/// Files are told apart by inode and by creation: an inode freed and used again for a new file
/// is a new file, which starts empty.
struct CrashStates {
    /// A change to a file's contents.
    private enum Change {
        case write(offset: Int, data: Range<Int>)
        case resize(Int)
        case extend(Int)

        /// The bytes a change writes (a write's length; size changes write none).
        var written: Int {
            if case .write(_, let data) = self { return data.count }
            return 0
        }
    }

    /// A journal entry, with its file named by a node (a file's identity across renames).
    private enum Step {
        case change(node: Int, Change)
        case sync(node: Int)
        case syncFailed(node: Int)
        case directorySync(String)
        case syncAll
        case create(String, node: Int)
        case makeDirectory(String)
        case rename(from: String, to: String)
        case unlink(String)
        case removeDirectory(String)

        /// The directory whose fsync makes this name change durable (a rename: its target's).
        var directory: String? {
            switch self {
            case .create(let path, _), .makeDirectory(let path), .unlink(let path), .removeDirectory(let path):
                return CrashStates.parent(path)
            case .rename(_, let to): return CrashStates.parent(to)
            default: return nil
            }
        }
    }

    /// How a state is chosen.
    enum Mode {
        /// Everything the processes did up to the cut: what a `kill -9` leaves (the page cache
        /// survives it).
        case killed
        /// Only what was synced; every later change lost.
        case syncedOnly
        /// Each change after its file's last sync kept, dropped or torn at random; a random
        /// prefix of each directory's unsynced name changes kept.
        case powerCut
    }

    /// The files of one state.
    struct State {
        var files: [String: [UInt8]]
        var directories: Set<String>
        /// Bytes written by the processes that this state does not hold (dropped and torn writes).
        var bytesLost = 0

        /// Writes the state into `directory` (which must not exist yet).
        func materialize(into directory: String) throws {
            let manager = FileManager.default
            // Private, as capture makes a data directory (`capture doctor` checks its mode).
            try manager.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            for path in directories.sorted() {
                try manager.createDirectory(atPath: directory + "/" + path, withIntermediateDirectories: true)
            }
            for (path, bytes) in files {
                let full = directory + "/" + path
                try manager.createDirectory(
                    atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                guard manager.createFile(atPath: full, contents: Data(bytes), attributes: [.posixPermissions: 0o600]) else {
                    throw CampaignError("cannot write \(full)")
                }
            }
        }
    }

    private let journal: PowerJournal
    private let steps: [Step]
    private let baseFiles: [String: Int]
    private let baseContents: [Int: [UInt8]]
    private let baseDirectories: Set<String>
    /// For each step, the index of the journal entry it came from (steps ≥ entries: an implicit
    /// create precedes the first write to a file the shim did not see created, e.g. by `mkstemp`
    /// inside the C library).
    private let entryOfStep: [Int]

    /// Points to cut at: step counts from 0 (nothing done) to ``stepCount`` (all done).
    var stepCount: Int { steps.count }

    /// The steps that are syncs: cutting right before one leaves its writes unsynced.
    var syncPoints: [Int] {
        steps.indices.filter {
            switch steps[$0] {
            case .sync, .directorySync, .syncAll: return true
            default: return false
            }
        }
    }

    /// The steps done by the time the journal held `bytes` bytes (a size read while the run went
    /// on): the cut point of that moment.
    func steps(upToJournalByte bytes: Int) -> Int {
        entryOfStep.firstIndex { journal.entries[$0].data.upperBound > bytes } ?? steps.count
    }

    init(root: String, snapshot: DirectorySnapshot, journal: PowerJournal) {
        self.journal = journal
        let prefix = root.hasSuffix("/") ? root : root + "/"
        func relative(_ path: String) -> String? {
            if path == root || path + "/" == prefix { return "" }
            return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : nil
        }
        var nodeOfInode: [UInt64: Int] = [:]
        var files: [String: Int] = [:]
        var contents: [Int: [UInt8]] = [:]
        var nextNode = 0
        for (path, file) in snapshot.files.sorted(by: { $0.key < $1.key }) {
            files[path] = nextNode
            contents[nextNode] = file.bytes
            nodeOfInode[file.inode] = nextNode
            nextNode += 1
        }
        var steps: [Step] = []
        var entryOfStep: [Int] = []
        for (index, entry) in journal.entries.enumerated() {
            func add(_ step: Step) {
                steps.append(step)
                entryOfStep.append(index)
            }
            func node(creatingAt path: String?) -> Int? {
                if let node = nodeOfInode[entry.inode] { return node }
                guard let path else { return nil }
                let node = nextNode
                nextNode += 1
                nodeOfInode[entry.inode] = node
                add(.create(path, node: node))
                return node
            }
            let path = relative(entry.path)
            switch entry.kind {
            case .write, .truncate, .extend:
                guard let node = node(creatingAt: path) else { continue }
                let change: Change =
                    switch entry.kind {
                    case .write: .write(offset: Int(entry.offset), data: entry.data)
                    case .truncate: .resize(Int(entry.length))
                    default: .extend(Int(entry.length))
                    }
                add(.change(node: node, change))
            case .sync:
                if let node = node(creatingAt: path) { add(.sync(node: node)) }
            case .syncFailed:
                if let node = node(creatingAt: path) { add(.syncFailed(node: node)) }
            case .directorySync:
                if let path { add(.directorySync(path)) }
            case .syncAll: add(.syncAll)
            case .create:
                guard let path else { continue }
                let node = nextNode
                nextNode += 1
                nodeOfInode[entry.inode] = node
                add(.create(path, node: node))
            case .makeDirectory:
                if let path { add(.makeDirectory(path)) }
            case .rename:
                switch (path, relative(entry.path2)) {
                case (let from?, let to?): add(.rename(from: from, to: to))
                case (let from?, nil): add(.unlink(from))  // moved out of the watched directory
                case (nil, let to?): _ = node(creatingAt: to)  // moved in: a new file here
                case (nil, nil): break
                }
            case .unlink:
                if let path { add(.unlink(path)) }
            case .removeDirectory:
                if let path { add(.removeDirectory(path)) }
            }
        }
        self.steps = steps
        self.entryOfStep = entryOfStep
        baseFiles = files
        baseContents = contents
        baseDirectories = snapshot.directories
    }

    /// The state after the first `cut` steps, chosen by `mode`.
    func state(cut: Int, mode: Mode, random: inout SplitMix64) -> State {
        let cut = min(max(cut, 0), steps.count)
        // The last sync of each file and directory before the cut.
        var lastSync: [Int: Int] = [:]
        var lastDirectorySync: [String: Int] = [:]
        var lastSyncAll = -1
        for index in 0..<cut {
            switch steps[index] {
            case .sync(let node): lastSync[node] = index
            case .directorySync(let path): lastDirectorySync[path] = index
            case .syncAll: lastSyncAll = index
            default: break
            }
        }
        // Changes pending when a sync of their file failed never reach the medium: Linux marks
        // their pages clean, so a later sync that succeeds does not write them (fsyncgate).
        var doomed: Set<Int> = []
        var pending: [Int: [Int]] = [:]
        for index in 0..<cut {
            switch steps[index] {
            case .change(let node, _): pending[node, default: []].append(index)
            case .sync(let node): pending[node] = nil
            case .syncFailed(let node): doomed.formUnion(pending.removeValue(forKey: node) ?? [])
            case .syncAll: pending = [:]
            default: break
            }
        }
        func durable(_ index: Int, file node: Int) -> Bool {
            mode == .killed || (!doomed.contains(index) && index < max(lastSync[node] ?? -1, lastSyncAll))
        }
        func durableName(_ index: Int, _ directory: String) -> Bool {
            mode == .killed || index < max(lastDirectorySync[directory] ?? -1, lastSyncAll)
        }

        // Names: which unsynced changes survive, a prefix per directory.
        var pendingNames: [String: Int] = [:]
        for index in 0..<cut {
            guard let directory = steps[index].directory, !nameDurable(index, directory, durableName) else { continue }
            pendingNames[directory, default: 0] += 1
        }
        var keptNames: [String: Int] = [:]
        for (directory, count) in pendingNames.sorted(by: { $0.key < $1.key }) {
            keptNames[directory] = mode == .powerCut ? Int.random(in: 0...count, using: &random) : 0
        }

        var contents = baseContents
        var names = baseFiles
        var directories = baseDirectories
        var lost = 0
        for index in 0..<cut {
            switch steps[index] {
            case .change(let node, let change):
                if durable(index, file: node) {
                    apply(change, to: &contents[node, default: []])
                    continue
                }
                guard mode == .powerCut, !doomed.contains(index) else {
                    lost += change.written
                    continue
                }
                switch Int.random(in: 0..<10, using: &random) {
                case 0..<4:  // kept whole
                    apply(change, to: &contents[node, default: []])
                case 4..<7:  // lost
                    lost += change.written
                default:  // torn: some of its sectors
                    lost += apply(change, to: &contents[node, default: []]) { Bool.random(using: &random) }
                }
            case let step:
                guard let directory = step.directory else { continue }
                if !nameDurable(index, directory, durableName) {
                    guard let left = keptNames[directory], left > 0 else {
                        keptNames[directory] = 0
                        continue
                    }
                    keptNames[directory] = left - 1
                }
                switch step {
                case .create(let path, let node):
                    if path.isEmpty || Self.parent(path).isEmpty || directories.contains(Self.parent(path)) {
                        names[path] = node
                        contents[node] = contents[node] ?? []
                    }
                case .makeDirectory(let path): directories.insert(path)
                case .rename(let from, let to):
                    if let node = names.removeValue(forKey: from) {
                        names[to] = node
                    } else if directories.contains(from) {
                        directories.remove(from)
                        directories.insert(to)
                        for (path, node) in names where path.hasPrefix(from + "/") {
                            names[path] = nil
                            names[to + path.dropFirst(from.count)] = node
                        }
                    }
                case .unlink(let path): names[path] = nil
                case .removeDirectory(let path): directories.remove(path)
                default: break
                }
            }
        }
        var files: [String: [UInt8]] = [:]
        for (path, node) in names { files[path] = contents[node] ?? [] }
        return State(files: files, directories: directories, bytesLost: lost)
    }

    /// A rename is durable when the directories of both names were fsynced after it.
    private func nameDurable(_ index: Int, _ directory: String, _ durable: (Int, String) -> Bool) -> Bool {
        if case .rename(let from, _) = steps[index], !durable(index, Self.parent(from)) { return false }
        return durable(index, directory)
    }

    /// Applies `change`; a write keeps each 512-byte sector (of the file) it touches for which
    /// `keep` says so. Returns the bytes of the write left out.
    @discardableResult
    private func apply(_ change: Change, to file: inout [UInt8], keep: () -> Bool = { true }) -> Int {
        switch change {
        case .resize(let size):
            if size < file.count { file.removeLast(file.count - size) } else { file += [UInt8](repeating: 0, count: size - file.count) }
            return 0
        case .extend(let size):
            if size > file.count { file += [UInt8](repeating: 0, count: size - file.count) }
            return 0
        case .write(let offset, let data):
            var lost = 0
            var start = offset
            let end = offset + data.count
            while start < end {
                let sectorEnd = min((start / 512 + 1) * 512, end)
                if keep() {
                    if file.count < sectorEnd { file += [UInt8](repeating: 0, count: sectorEnd - file.count) }
                    let from = data.lowerBound + (start - offset)
                    file.replaceSubrange(start..<sectorEnd, with: journal.bytes[from..<from + (sectorEnd - start)])
                } else {
                    lost += sectorEnd - start
                }
                start = sectorEnd
            }
            return lost
        }
    }

    static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[..<slash])
    }
}
