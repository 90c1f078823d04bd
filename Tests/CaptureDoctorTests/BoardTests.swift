import Foundation
import Testing

@testable import CaptureDoctor

/// `capture doctor --system` on fake board trees (issue 44, item 4): the files a Raspberry Pi's
/// firmware, the kernel and systemd keep, written under a temporary root.
@Suite struct BoardTests {
    /// A board's files under a temporary root, removed with it.
    final class Board {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("board-\(UUID().uuidString)").path

        deinit { try? FileManager.default.removeItem(atPath: root) }

        /// Writes `text` at `path` (relative to the root), making its folders.
        func write(_ path: String, _ text: String) {
            let file = root + "/" + path
            try? FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            FileManager.default.createFile(atPath: file, contents: Data(text.utf8))
        }

        func directory(_ path: String) {
            try? FileManager.default.createDirectory(atPath: root + "/" + path, withIntermediateDirectories: true)
        }

        /// A Raspberry Pi booted from its card (`root=PARTUUID=…`, Raspberry Pi OS's way), root
        /// mounted with `options`.
        static func pi(rootOptions: String = "rw,noatime,commit=60") -> Board {
            let board = Board()
            board.directory("sys/block/mmcblk0/device")
            board.write("proc/cmdline", "console=tty1 root=PARTUUID=4e639091-02 rootfstype=ext4 fsck.repair=yes rootwait\n")
            board.write(
                "proc/mounts",
                """
                /dev/root / ext4 \(rootOptions) 0 0
                proc /proc proc rw,relatime 0 0
                /dev/mmcblk0p1 /boot/firmware vfat rw,relatime 0 0
                /dev/sda1 /mnt/usb ext4 rw,noatime 0 0

                """)
            board.write("proc/swaps", "Filename\tType\tSize\tUsed\tPriority\n")
            return board
        }

        func checks(dataDirectory: String = "/var/lib/capture") -> [String: DoctorCheck] {
            let board = BoardState(root: root, dataDirectory: dataDirectory)
            return Dictionary(uniqueKeysWithValues: Doctor().system(board).map { ($0.check, $0) })
        }
    }

    @Test func aWellKeptPiPassesEveryCheck() {
        let board = Board.pi()
        board.write("sys/devices/platform/soc/soc:firmware/get_throttled", "0x0\n")
        board.write("etc/systemd/journald.conf", "[Journal]\nStorage=volatile\n")
        board.directory("var/log/journal")
        board.write("run/systemd/timesync/synchronized", "")
        board.write("sys/block/mmcblk0/device/life_time", "0x01 0x02\n")
        board.write("sys/block/mmcblk0/device/pre_eol_info", "0x01\n")
        let checks = board.checks()
        #expect(Doctor().system(BoardState(root: board.root, dataDirectory: "/var/lib/capture")).map(\.check) == [
            "power", "swap", "journal", "data medium", "clock", "card",
        ])
        for (name, check) in checks { #expect(check.status == .pass, "\(name): \(check)") }
        #expect(checks["power"]?.detail == "no under-voltage or throttling since boot (get_throttled 0x0)")
        #expect(checks["data medium"]?.detail == "the data directory is on the SD card (/, rw,noatime,commit=60)")
        #expect(checks["card"]?.detail == "type A 0–10 % used, type B 10–20 % used, reserved blocks: normal")
    }

    @Test func aPiAsFlashedWearsItsCardAndBrownsOut() {
        // Raspberry Pi OS as it comes: swap file on the root file system, journald's default
        // (auto, /var/log/journal present), root mounted relatime, no RTC, an unsynchronised clock.
        let board = Board.pi(rootOptions: "rw,relatime")
        board.write("sys/devices/platform/soc/soc:firmware/get_throttled", "0x50005\n")
        board.write("proc/swaps", "Filename\tType\tSize\tUsed\tPriority\n/var/swap file 102396 0 -2\n")
        board.write("etc/systemd/journald.conf", "[Journal]\n#Storage=auto\n#SystemMaxUse=\n")
        board.directory("var/log/journal")
        board.write("sys/block/mmcblk0/device/life_time", "0x0B 0x0A\n")
        let checks = board.checks()
        #expect(checks["power"]?.status == .fail)
        #expect(checks["power"]?.detail == "under-voltage now (get_throttled 0x50005)")
        #expect(checks["power"]?.advice?.contains("5.1 V under load") == true)
        #expect(checks["swap"]?.status == .warn && checks["swap"]?.detail.contains("/var/swap") == true)
        #expect(checks["journal"]?.status == .warn)
        #expect(checks["data medium"]?.status == .warn)
        #expect(checks["data medium"]?.detail.hasSuffix("without noatime and commit=") == true)
        #expect(checks["data medium"]?.advice == "add noatime,commit=60 to the options of / in /etc/fstab")
        #expect(checks["clock"]?.status == .warn)
        #expect(checks["card"]?.status == .fail && checks["card"]?.detail == "worn out: type A beyond its life, type B 90–100 % used")
    }

    @Test func powerTroubleSinceBootWarnsAndTheHwmonAlarmFails() {
        let board = Board.pi()
        board.write("sys/devices/platform/soc/soc:firmware/get_throttled", "0x50000\n")
        #expect(board.checks()["power"]?.status == .warn)
        #expect(board.checks()["power"]?.detail == "under-voltage since boot (get_throttled 0x50000)")
        board.write("sys/devices/platform/soc/soc:firmware/get_throttled", "0x20000\n")
        #expect(board.checks()["power"]?.detail == "throttled or capped since boot, by heat (get_throttled 0x20000)")
        // Newer kernels say it through hwmon too (rpi_volt): an alarm now is a failure.
        board.write("sys/devices/platform/soc/soc:firmware/get_throttled", "0x0\n")
        board.write("sys/class/hwmon/hwmon1/name", "cpu_thermal\n")
        board.write("sys/class/hwmon/hwmon2/name", "rpi_volt\n")
        board.write("sys/class/hwmon/hwmon2/in0_lcrit_alarm", "1\n")
        #expect(board.checks()["power"]?.status == .fail)
        board.write("sys/class/hwmon/hwmon2/in0_lcrit_alarm", "0\n")
        #expect(board.checks()["power"]?.status == .pass)
    }

    @Test func aCappedJournalADataDirectoryOnAStickAndAnRTCPass() {
        let board = Board.pi(rootOptions: "rw,relatime")
        board.write("etc/systemd/journald.conf", "[Journal]\nStorage=persistent\n")
        board.write("etc/systemd/journald.conf.d/50-capture.conf", "[Journal]\nSystemMaxUse=50M\n")
        board.directory("sys/class/rtc/rtc0")
        let checks = board.checks(dataDirectory: "/mnt/usb/capture")
        #expect(checks["journal"]?.status == .pass)
        #expect(checks["data medium"]?.status == .pass && checks["data medium"]?.detail == "the data directory is not on an SD card")
        #expect(checks["clock"]?.status == .pass && checks["clock"]?.detail.contains("RTC") == true)
        // A drop-in that empties the cap again leaves it uncapped.
        board.write("etc/systemd/journald.conf.d/60-other.conf", "[Journal]\nSystemMaxUse=\n")
        #expect(board.checks()["journal"]?.status == .warn)
    }

    @Test func aCardNearTheEndOfItsLifeWarns() {
        let board = Board.pi()
        board.write("sys/block/mmcblk0/device/life_time", "0x03 0x09\n")
        #expect(board.checks()["card"]?.status == .warn)
        board.write("sys/block/mmcblk0/device/life_time", "0x01 0x01\n")
        board.write("sys/block/mmcblk0/device/pre_eol_info", "0x02\n")
        #expect(board.checks()["card"]?.status == .warn && board.checks()["card"]?.detail.hasSuffix("reserved blocks: warning") == true)
        board.write("sys/block/mmcblk0/device/pre_eol_info", "0x03\n")
        #expect(board.checks()["card"]?.status == .fail)
    }

    @Test func aBoardThatSaysNothingPassesButForItsClock() {
        let board = Board()
        board.directory("proc")
        let checks = board.checks()
        #expect(checks["power"]?.detail == "the board reports no power state")
        #expect(checks["card"]?.detail == "the card does not report its wear")
        #expect(checks.values.filter { $0.status != .pass }.map(\.check) == ["clock"])
        // A root device given by name is the card too, without /sys/block.
        board.write("proc/cmdline", "root=/dev/mmcblk0p2 rw\n")
        board.write("proc/mounts", "/dev/root / ext4 rw 0 0\n")
        #expect(board.checks()["data medium"]?.status == .warn)
    }
}
