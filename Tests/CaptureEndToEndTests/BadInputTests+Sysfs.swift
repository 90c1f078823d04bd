import CaptureTestSupport
import Foundation
import Testing

// Odd sysfs values: rows of docs/bad-input.md (the shared helpers are in BadInputTests.swift).

@Suite struct BadSysfsTests {
    /// A fake root with one polled accelerometer `iio:device0` with `files` on top of sane ones
    /// (written exactly, without sysfs's trailing newline; `nil` leaves a file out).
    static func root(_ files: [String: String?]) throws -> FakeSysfs {
        let sysfs = FakeSysfs(prefix: "capture-bad-sysfs")
        var all: [String: String?] = [
            "name": "oddaccel", "in_accel_x_raw": "1", "in_accel_y_raw": "2", "in_accel_z_raw": "981",
            "in_accel_scale": "0.01",
        ]
        for (name, text) in files { all[name] = text }
        sysfs.write("iio:device0", all.compactMapValues { $0 }, terminator: "")
        return sysfs
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var files: [String: String?]
        var device = "iio:device0"
        var status: Int32
        var message: String
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "non-numeric scale", files: ["in_accel_scale": "fast\n"], status: 65, message: "iio:device0: "),
        Row(name: "empty scale file", files: ["in_accel_scale": ""], status: 65, message: "iio:device0: "),
        Row(
            name: "no channels at all",
            files: ["in_accel_x_raw": nil, "in_accel_y_raw": nil, "in_accel_z_raw": nil, "in_accel_scale": nil], status: 64,
            message: "iio:device0 (oddaccel) has no accelerometer, gyroscope, magnetometer or pressure channel"),
        Row(name: "missing device", files: [:], device: "iio:device7", status: 66, message: "no IIO device iio:device7 under "),
        Row(
            name: "unreadable scan type",
            files: [
                "buffer0/enable": "0", "buffer0/in_accel_x_en": "0", "buffer0/in_accel_x_index": "0",
                "buffer0/in_accel_y_en": "0", "buffer0/in_accel_y_index": "1", "buffer0/in_accel_z_en": "0",
                "buffer0/in_accel_z_index": "2", "buffer0/in_accel_type": "le:s16/sixteen>>0",
            ], status: 65, message: "iio:device0: "),
    ]

    @Test(arguments: rows)
    func oddDeviceIsRefusedBeforeAnythingStarts(_ row: Row) throws {
        let sysfs = try Self.root(row.files)
        defer { sysfs.remove() }
        let root = sysfs.path
        if row.name == "unreadable scan type" { sysfs.makeNode("iio:device0") }
        let cli = CLI()
        let result = try cli.run(["start", "--sysfs-root", root, "--source", "iio:\(row.device)"])
        expectRefusal(result, row.status, row.message, row.name)
        #expect(cli.recorderPID == nil, "\(row.name): a recorder was started")
        #expect(try cli.databaseDump() == "", "\(row.name): something was stored")
    }

    @Test(arguments: ["-5", "abc", "1e308", ""])
    func absurdSamplingFrequencyIsIgnored(_ value: String) throws {
        let sysfs = try Self.root(["sampling_frequency": value + "\n", "sampling_frequency_available": "fast slow\n"])
        defer { sysfs.remove() }
        let root = sysfs.path
        let cli = CLI()
        let result = try cli.run(["sensors", "--json", "--sysfs-root", root, "--gpsd", "127.0.0.1:1"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] ?? [:]
        let device = (json["iio"] as? [[String: Any]])?.first ?? [:]
        #expect(device["id"] as? String == "iio:device0")
        #expect(device["currentRate"] == nil, "\(device)")
    }

    @Test func deviceDisappearingFailsItsSourceAndKeepsWhatWasCaptured() throws {
        let sysfs = try Self.root([:])
        defer { sysfs.remove() }
        let root = sysfs.path
        let cli = CLI()
        let started = try cli.run(["start", "--sysfs-root", root, "--source", "iio:iio:device0", "--rate", "50", "--flush-interval", "0.1"])
        #expect(started.status == 0, "\(started.stderr)")
        #expect(try cli.waitForCommitted(5))
        try FileManager.default.removeItem(atPath: sysfs.deviceDirectory("iio:device0"))
        var source: [String: Any] = [:]
        #expect(
            try cli.waitFor(10) {
                let status = try cli.json(["status"])
                source = ((status["recorder"] as? [String: Any])?["sources"] as? [[String: Any]])?.first ?? [:]
                return source["state"] as? String == "failed"
            }, "\(source)")
        #expect((source["error"] as? String)?.contains("the device vanished") == true, "\(source)")
        #expect(try cli.run(["status"]).stdout.contains("sources failed: 1 of 1 (nothing more is recorded)"))
        #expect(try cli.run(["stop"]).status == 0)
        let counts = try cli.json(["show", "1"])["counts"] as? [String: Any] ?? [:]
        #expect((counts["accelerometer"] as? Int ?? 0) >= 5)
    }
}
