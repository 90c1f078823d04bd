import CaptureTestSupport
import Foundation
import Glibc
import Testing

/// A small file system image mounted for one test, as a memory card would be: exFAT through
/// FUSE (`exfat-fuse` on a loop device, the FUSE process run in the foreground by the test), or
/// vfat through the kernel (`mount -o loop`). Both with `umask=077`, as a card is mounted for
/// one user. ``unmount()`` (or the value going) unmounts it, ends the FUSE process by its pid,
/// detaches the loop device and removes the image, whatever the test asserted.
final class MountedImage {
    enum Kind: String {
        case exfatFUSE = "exFAT (FUSE)"
        case vfat = "vfat (kernel)"
    }

    /// The `capture-e2e-…` directory holding the image and the mount point.
    let root: String
    /// Where the file system is mounted.
    let point: String
    private var loopDevice: String?
    private var daemon: Subprocess?
    private var mounted = false

    /// A tool from scripts/setup, looked up on PATH and in the sbin directories (where the
    /// mount helpers live, which a test's PATH may lack).
    static func tool(_ name: String, package: String) throws -> String {
        if let path = Program.which(name) { return path }
        for directory in ["/usr/sbin", "/sbin", "/usr/bin", "/bin"] where access(directory + "/" + name, X_OK) == 0 {
            return directory + "/" + name
        }
        throw Failure("\(name) not found: run scripts/setup (installs \(package))")
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// Whether the kernel knows the file system `name` (`/proc/filesystems`): modules cannot be
    /// loaded from a test.
    static func kernelHas(_ name: String) -> Bool {
        let text = (try? String(contentsOfFile: "/proc/filesystems", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").contains { $0.split(whereSeparator: \.isWhitespace).last.map(String.init) == name }
    }

    /// The type `/proc/self/mountinfo` gives the file system mounted at `point`, if any.
    static func fileSystemType(at point: String) -> String? {
        let text = (try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)) ?? ""
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count > 4, fields[4] == point, let dash = fields.firstIndex(of: "-"), dash + 1 < fields.count else {
                continue
            }
            return fields[dash + 1]
        }
        return nil
    }

    /// Makes a 64 MiB image of `kind` and mounts it.
    init(_ kind: Kind) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("capture-e2e-\(UUID().uuidString)").path
        point = root + "/card"
        try FileManager.default.createDirectory(atPath: point, withIntermediateDirectories: true)
        let image = root + "/card.img"
        guard FileManager.default.createFile(atPath: image, contents: nil), truncate(image, 64 << 20) == 0 else {
            throw Failure("cannot make \(image)")
        }
        switch kind {
        case .exfatFUSE:
            try run(try Self.tool("mkfs.exfat", package: "exfatprogs"), [image])
            let attached = try run(try Self.tool("losetup", package: "mount"), ["--find", "--show", image])
            loopDevice = attached.trimmingCharacters(in: .whitespacesAndNewlines)
            // -d: in the foreground (with FUSE's debug lines, into a file), so the test owns its pid.
            daemon = try Subprocess(
                ["-d", "-o", "umask=077", loopDevice ?? "", point], input: nil,
                executable: try Self.tool("mount.exfat-fuse", package: "exfat-fuse"))
        case .vfat:
            try run(try Self.tool("mkfs.vfat", package: "dosfstools"), [image])
            try run(try Self.tool("mount", package: "mount"), ["-o", "loop,umask=077", image, point])
        }
        mounted = true
        let deadline = Date().addingTimeInterval(10)
        while Self.fileSystemType(at: point) == nil, Date() < deadline { usleep(20_000) }
        guard Self.fileSystemType(at: point) != nil else {
            unmount()
            throw Failure("\(kind.rawValue) did not mount at \(point): \(daemon?.stderr.suffix(500) ?? "")")
        }
    }

    /// Runs `tool` and returns its output; throws with its error output if it fails.
    @discardableResult
    private func run(_ tool: String, _ arguments: [String]) throws -> String {
        let result = try Program.run(tool, arguments)
        guard result.status == 0 else {
            throw Failure("\(tool) \(arguments.joined(separator: " ")): exit \(result.status): \(result.stderr)")
        }
        return result.stdout
    }

    /// Unmounts, ends the FUSE process, detaches the loop device and removes everything. Once.
    func unmount() {
        if mounted, let umount = try? Self.tool("umount", package: "mount") {
            for _ in 0..<50 {
                if (try? Program.run(umount, [point]))?.status == 0 || Self.fileSystemType(at: point) == nil { break }
                usleep(100_000)  // busy for a moment after the recorder exited
            }
        }
        mounted = false
        // Unmounted, it is exiting by itself; stop() ends it by its pid and reaps it.
        daemon?.stop(graceSeconds: 5)
        daemon = nil
        if let loopDevice, let losetup = try? Self.tool("losetup", package: "mount") {
            _ = try? Program.run(losetup, ["--detach", loopDevice])
        }
        loopDevice = nil
        if Self.fileSystemType(at: point) == nil { try? FileManager.default.removeItem(atPath: root) }
    }

    deinit { unmount() }
}
