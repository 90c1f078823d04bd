import Foundation
import Glibc
package import Testing

/// A fake `/` for IIO tests: `sys/bus/iio/devices/…` attribute files and `dev/…` device nodes
/// (FIFOs) in a temporary directory, passed to the code under test as its sysfs root
/// (`--sysfs-root` for the CLI). Removed by ``remove()`` or when the value goes away.
///
/// ```swift
/// let sysfs = FakeSysfs()
/// sysfs.write("iio:device0", ["name": "fakeaccel", "in_accel_x_raw": "0"])
/// sysfs.makeNode("iio:device0")
/// let devices = IIODiscovery.devices(root: sysfs.path)
/// ```
package final class FakeSysfs {
    /// The fake root.
    package let path: String

    /// Creates `<tmp>/<prefix>-<uuid>` with empty `dev` and `sys/bus/iio/devices` folders.
    package init(prefix: String = "capture-sysfs") {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: path + "/dev", withIntermediateDirectories: true)
        try? FileManager.default.createDirectory(atPath: devicesDirectory, withIntermediateDirectories: true)
    }

    deinit { remove() }

    /// Removes the whole tree.
    package func remove() { try? FileManager.default.removeItem(atPath: path) }

    /// `<root>/sys/bus/iio/devices`.
    package var devicesDirectory: String { path + "/sys/bus/iio/devices" }

    /// The sysfs directory of device `id` (`iio:device0`, `trigger0`).
    package func deviceDirectory(_ id: String) -> String { devicesDirectory + "/" + id }

    /// Writes attribute files of a device (relative paths such as `buffer0/in_accel_x_en`), those
    /// of `files` and then of each of `more` (``scanElement(_:index:type:enabled:in:)``,
    /// ``axes(_:type:first:sharedType:enabled:in:)``), each ending with `terminator` (sysfs gives
    /// a newline; pass `""` to write the text exactly). A file that cannot be written is recorded
    /// as an issue of the calling test.
    package func write(
        _ id: String, _ files: [String: String], _ more: [String: String]..., terminator: String = "\n",
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for (name, text) in ([files] + more).joined() {
            let file = deviceDirectory(id) + "/" + name
            do {
                try FileManager.default.createDirectory(
                    atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try (text + terminator).write(toFile: file, atomically: false, encoding: .utf8)
            } catch {
                Issue.record("cannot write \(file): \(error)", sourceLocation: sourceLocation)
            }
        }
    }

    /// The trimmed text of a device's attribute file, or `nil`.
    package func read(_ id: String, _ name: String) -> String? {
        (try? String(contentsOfFile: deviceDirectory(id) + "/" + name, encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Makes `dev/<id>` a FIFO, as the device node a buffered device is read from.
    package func makeNode(_ id: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(mkfifo(node(id), 0o600) == 0, "mkfifo \(node(id))", sourceLocation: sourceLocation)
    }

    /// Makes `dev/<id>` a directory: a node that exists but cannot be opened as a device.
    package func makeUnopenableNode(_ id: String) throws {
        try FileManager.default.createDirectory(atPath: node(id), withIntermediateDirectories: true)
    }

    /// Makes a device's attribute `name` one the kernel refuses to write, as an attribute the
    /// driver declares read-only: a directory in its place (it exists, reads as nothing, and
    /// opening it for writing fails with EISDIR, for root too, as the tests run in CI).
    package func makeUnwritable(_ id: String, _ name: String) throws {
        try? FileManager.default.removeItem(atPath: deviceDirectory(id) + "/" + name)
        try FileManager.default.createDirectory(atPath: deviceDirectory(id) + "/" + name, withIntermediateDirectories: true)
    }

    /// Makes a device's attribute `name` readable but not writable, not even by root (a file's
    /// mode stops nothing there): a symlink to the kernel's read-only sysctl
    /// `/proc/sys/kernel/cap_last_cap`, which reads as a number (40 on Linux 5.9 and later) and
    /// refuses every write with EACCES. Returns that number, or `nil` (and changes nothing)
    /// where the file is missing or writable.
    package func makeReadOnly(_ id: String, _ name: String) -> Double? {
        let target = "/proc/sys/kernel/cap_last_cap"
        guard access(target, R_OK) == 0, access(target, W_OK) != 0,
            let text = try? String(contentsOfFile: target, encoding: .utf8),
            let value = Double(text.trimmingCharacters(in: .whitespacesAndNewlines))
        else { return nil }
        let file = deviceDirectory(id) + "/" + name
        try? FileManager.default.removeItem(atPath: file)
        guard symlink(target, file) == 0 else { return nil }
        return value
    }

    /// The path of `dev/<id>`.
    package func node(_ id: String) -> String { path + "/dev/" + id }
}

extension FakeSysfs {
    /// The scan element files of one buffered channel (`accel_x`, `pressure`, `timestamp`) in
    /// `buffer` (`buffer0`, or the legacy `scan_elements`): `in_<channel>_en` (`enabled`: `1`,
    /// else `0`), `in_<channel>_index` and, unless `type` is `nil`, `in_<channel>_type`.
    package static func scanElement(
        _ channel: String, index: Int, type: String?, enabled: Bool = false, in buffer: String = "buffer0"
    ) -> [String: String] {
        var files = ["\(buffer)/in_\(channel)_en": enabled ? "1" : "0", "\(buffer)/in_\(channel)_index": "\(index)"]
        if let type { files["\(buffer)/in_\(channel)_type"] = type }
        return files
    }

    /// The scan elements of a three-axis sensor (`accel`, `anglvel`, `magn`): `x`, `y`, `z` at
    /// indexes `first`, `first + 1`, `first + 2`, each of `type`; or, with `sharedType`, one
    /// `in_<sensor>_type` for the three.
    package static func axes(
        _ sensor: String, type: String, first: Int = 0, sharedType: Bool = false, enabled: Bool = false,
        in buffer: String = "buffer0"
    ) -> [String: String] {
        var files = sharedType ? ["\(buffer)/in_\(sensor)_type": type] : [:]
        for (offset, axis) in ["x", "y", "z"].enumerated() {
            files.merge(
                scanElement(
                    "\(sensor)_\(axis)", index: first + offset, type: sharedType ? nil : type, enabled: enabled, in: buffer)
            ) { $1 }
        }
        return files
    }
}
