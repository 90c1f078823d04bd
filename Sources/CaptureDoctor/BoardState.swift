package import CaptureSensors
import Foundation

/// What a board says about its own health, read from the files the kernel, systemd and the
/// Raspberry Pi firmware keep under a root directory (`/`, or a fake tree in tests): power,
/// swap, the journal, the data directory's medium, the clock and the SD card's wear. Each part
/// is `nil` (or empty) where the board does not say.
package struct BoardState: Sendable, Equatable {
    /// The Raspberry Pi's power: the firmware's throttling flags and the hwmon alarm.
    package var power: BoardPower
    /// Swap areas (`/proc/swaps`) on the SD card.
    package var swapOnCard: [String] = []
    /// journald keeps its journal on the SD card (`Storage=persistent`, or `auto` with
    /// `/var/log/journal` present) with no `SystemMaxUse=` cap.
    package var uncappedJournalOnCard = false
    /// The data directory's file system, when it is on the SD card.
    package var dataOnCard: CardMount?
    /// The clock is synchronised (systemd-timesyncd's `/run/systemd/timesync/synchronized`,
    /// or the kernel's `adjtimex` on the running system).
    package var clockSynchronized = false
    /// The board has a real-time clock (`/sys/class/rtc/rtc0`).
    package var hasRTC = false
    /// The SD card's wear (eMMC/SD `life_time`: estimates of type A and B in 10 % steps, 11 =
    /// exceeded; `pre_eol_info`: 1 normal, 2 warning, 3 urgent).
    package var cardLifeTime: [Int]?
    package var cardPreEOL: Int?

    /// A file system on the SD card: where it is mounted, with which options.
    package struct CardMount: Sendable, Equatable {
        package var mountPoint: String
        package var options: [String]
    }

    /// Reads the board under `root` for a data directory at `dataDirectory` (an absolute path
    /// on that board). `synchronized` says whether the kernel's clock is synchronised when no
    /// file does (the running system's `adjtimex`; false for a fake tree).
    package init(root: String = "/", dataDirectory: String, synchronized: Bool = false) {
        let files = Files(root: root)
        power = BoardPower(root: root)
        let mounts = Mounts(files: files)
        // /proc/swaps: a header, then "path type size used priority".
        for line in (files.text("proc/swaps") ?? "").split(separator: "\n").dropFirst() {
            guard let path = line.split(separator: " ").first.map(String.init) else { continue }
            let device = path.hasPrefix("/dev/") ? path : mounts.containing(path)?.device ?? ""
            if mounts.isCard(device) { swapOnCard.append(path) }
        }
        let journald = Journald(files: files)
        if journald.persistent, journald.maxUse == nil, let log = mounts.containing("/var/log/journal"), mounts.isCard(log.device) {
            uncappedJournalOnCard = true
        }
        if let data = mounts.containing(dataDirectory), mounts.isCard(data.device) {
            dataOnCard = CardMount(mountPoint: data.mountPoint, options: data.options)
        }
        clockSynchronized = files.exists("run/systemd/timesync/synchronized") || synchronized
        hasRTC = files.exists("sys/class/rtc/rtc0")
        let card = "sys/block/mmcblk0/device/"
        cardLifeTime = files.text(card + "life_time").map { $0.split(separator: " ").compactMap { Self.number(String($0)) } }
        cardPreEOL = files.text(card + "pre_eol_info").flatMap { Self.number($0) }
    }

    /// `0x50005`, `5`.
    static func number(_ text: String) -> Int? {
        text.hasPrefix("0x") ? Int(text.dropFirst(2), radix: 16) : Int(text)
    }

    /// Files under a root, read as trimmed text.
    struct Files {
        var root: String

        func path(_ relative: String) -> String { (root as NSString).appendingPathComponent(relative) }
        func text(_ relative: String) -> String? {
            (try? String(contentsOfFile: path(relative), encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        func exists(_ relative: String) -> Bool { FileManager.default.fileExists(atPath: path(relative)) }
        func entries(_ relative: String) -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path(relative))) ?? []).sorted() }
    }

    /// The mounted file systems (`/proc/mounts`) and which of them are on the SD card.
    struct Mounts {
        struct Mount {
            var device: String
            var mountPoint: String
            var options: [String]
        }

        var mounts: [Mount]
        /// The root device the kernel was given (`root=` of `/proc/cmdline`), for `/dev/root`.
        var rootDevice: String?
        /// Whether the board has an SD card or eMMC (`/sys/block/mmcblk0`).
        var hasCard: Bool

        init(files: Files) {
            mounts = (files.text("proc/mounts") ?? "").split(separator: "\n").compactMap { line in
                let fields = line.split(separator: " ").map(String.init)
                guard fields.count >= 4 else { return nil }
                return Mount(device: fields[0], mountPoint: fields[1], options: fields[3].split(separator: ",").map(String.init))
            }
            rootDevice = (files.text("proc/cmdline") ?? "").split(separator: " ").first { $0.hasPrefix("root=") }.map { String($0.dropFirst(5)) }
            hasCard = files.exists("sys/block/mmcblk0")
        }

        /// The mount holding `path`: the longest mount point that is `path` or a parent of it.
        func containing(_ path: String) -> Mount? {
            mounts.filter { path == $0.mountPoint || path.hasPrefix($0.mountPoint == "/" ? "/" : $0.mountPoint + "/") }
                .max { $0.mountPoint.count < $1.mountPoint.count }
        }

        /// Whether `device` is on the SD card (or eMMC): `/dev/mmcblk…`, or `/dev/root` when the
        /// kernel's root is one (given by name, or as `PARTUUID=` on a board with a card).
        func isCard(_ device: String) -> Bool {
            if device.hasPrefix("/dev/mmcblk") { return true }
            guard device == "/dev/root", let rootDevice else { return false }
            return rootDevice.hasPrefix("/dev/mmcblk") || (hasCard && rootDevice.hasPrefix("PARTUUID="))
        }
    }

    /// journald's settings: `/etc/systemd/journald.conf`, then its drop-ins in name order.
    struct Journald {
        var persistent = false
        var maxUse: String?

        init(files: Files) {
            let dropIns = files.entries("etc/systemd/journald.conf.d").filter { $0.hasSuffix(".conf") }
            var storage = "auto"
            for file in ["etc/systemd/journald.conf"] + dropIns.map({ "etc/systemd/journald.conf.d/" + $0 }) {
                for line in (files.text(file) ?? "").split(separator: "\n") where !line.hasPrefix("#") {
                    let parts = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
                    guard parts.count == 2 else { continue }
                    if parts[0] == "Storage" { storage = parts[1] }
                    if parts[0] == "SystemMaxUse" { maxUse = parts[1].isEmpty ? nil : parts[1] }
                }
            }
            // `auto` keeps the journal on disk once /var/log/journal exists (Debian's default creates it).
            persistent = storage == "persistent" || (storage == "auto" && files.exists("var/log/journal"))
        }
    }
}
