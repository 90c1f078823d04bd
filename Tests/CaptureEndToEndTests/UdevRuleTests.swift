import CaptureTestSupport
import Foundation
import Glibc
import Testing

/// The udev rule the package ships (`dist/udev/60-capture-iio.rules`, issue 42): the unit's
/// user could not read a buffered IIO device. Debian 12's udev (252) has no `udevadm verify`, so
/// the rule is parsed here, its keys and the group it names checked against the unit and the
/// postinst, and its shell command run on a fake sysfs directory.
@Suite struct UdevRuleTests {
    static let path = Repository.root + "/dist/udev/60-capture-iio.rules"

    /// One `KEY op "value"` of a rule.
    struct Assignment: Equatable {
        var key: String
        var op: String
        var value: String
    }

    /// The rules of the file: comments and blank lines skipped, `\`-continued lines joined, each
    /// rule split into its assignments (values in double quotes, without double quotes inside,
    /// as this rule writes them). `nil` for a rule that does not parse.
    static func rules(_ text: String) -> [[Assignment]?] {
        let lines = text.replacingOccurrences(of: "\\\n", with: "").split(separator: "\n").map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        return lines.filter { !$0.isEmpty && !$0.hasPrefix("#") }.map { line in
            var assignments: [Assignment] = []
            var rest = Substring(line)
            while !rest.isEmpty {
                guard let quote = rest.firstIndex(of: "\"") else { return nil }
                let head = rest[..<quote]
                guard let op = ["==", "!=", "+=", "-=", ":=", "="].first(where: { head.hasSuffix($0) }) else { return nil }
                let key = head.dropLast(op.count).trimmingCharacters(in: .whitespaces)
                let afterQuote = rest[rest.index(after: quote)...]
                guard let close = afterQuote.firstIndex(of: "\"") else { return nil }
                assignments.append(Assignment(key: key, op: op, value: String(afterQuote[..<close])))
                rest = afterQuote[afterQuote.index(after: close)...].drop { $0 == " " }
                if rest.hasPrefix(",") { rest = rest.dropFirst().drop { $0 == " " } } else if !rest.isEmpty { return nil }
            }
            return assignments
        }
    }

    /// Runs a rule's `RUN` command as udev would for the device at `directory` (its `/sys%p`),
    /// with a group that exists here standing in for `capture` (udev's `$$` is the shell's `$`);
    /// returns that group's id.
    static func runCommand(_ run: String, on directory: String) throws -> gid_t {
        let group = try #require(getgrnam("nogroup") ?? getgrnam("nobody"))
        let command = String(run.dropFirst("/bin/sh -c '".count).dropLast())
            .replacingOccurrences(of: "/sys%p", with: directory).replacingOccurrences(of: "$$", with: "$")
            .replacingOccurrences(of: "chgrp capture", with: "chgrp \(String(cString: group.pointee.gr_name))")
        let result = try Program.run("/bin/sh", ["-c", command])
        #expect(result.status == 0, "\(result.stderr)")
        return group.pointee.gr_gid
    }

    /// The group and permission bits of `path`.
    static func owner(_ path: String) -> (gid: gid_t, mode: mode_t) {
        var info = stat()
        _ = stat(path, &info)
        return (info.st_gid, info.st_mode & 0o777)
    }

    @Test func theRuleGivesTheUnitsGroupTheDeviceNodeAndTheBufferAttributes() throws {
        let text = try String(contentsOfFile: Self.path, encoding: .utf8)
        let rules = Self.rules(text)
        #expect(rules.count == 1)
        let rule = try #require(rules.first ?? nil, "the rule does not parse")
        // Only keys udev knows, each with an operator it takes.
        let known: [String: Set<String>] = [
            "SUBSYSTEM": ["==", "!="], "KERNEL": ["==", "!="], "ACTION": ["==", "!="], "GROUP": ["=", ":="],
            "MODE": ["=", ":="], "RUN": ["+=", "="],
        ]
        for assignment in rule {
            #expect(known[assignment.key]?.contains(assignment.op) == true, "\(assignment)")
        }
        func value(_ key: String, _ op: String) -> String? { rule.first { $0.key == key && $0.op == op }?.value }
        #expect(value("SUBSYSTEM", "==") == "iio")
        #expect(value("KERNEL", "==") == "iio:device[0-9]*")
        #expect(value("ACTION", "!=") == "remove")
        #expect(value("MODE", "=") == "0660")
        // The group is the one capture-record.service runs as, and the postinst makes it.
        let unit = try String(contentsOfFile: Repository.root + "/dist/systemd/capture-record.service", encoding: .utf8)
        let group = try #require(value("GROUP", "="))
        #expect(unit.contains("\nUser=capture\nGroup=\(group)\n"))
        let postinst = try String(contentsOfFile: Repository.root + "/dist/debian/postinst", encoding: .utf8)
        #expect(group == "capture" && postinst.contains("adduser --system --group") && postinst.contains(" capture\n"))
        // udev substitutes `%x` and `$name`: the command uses `%p` alone and doubles its `$`.
        let run = try #require(value("RUN", "+="))
        #expect(run.hasPrefix("/bin/sh -c '") && run.hasSuffix("'"))
        #expect(run.replacingOccurrences(of: "%p", with: "").firstIndex(of: "%") == nil)
        #expect(run.replacingOccurrences(of: "$$", with: "").firstIndex(of: "$") == nil)
        for attributes in ["buffer[0-9]*/*", "buffer/*", "scan_elements/*", "trigger/*", "sampling_frequency"] {
            #expect(run.contains(" \(attributes)"), "\(attributes)")
        }
        // Shipped and installed where udev reads it.
        let package = try String(contentsOfFile: Repository.root + "/scripts/package", encoding: .utf8)
        #expect(package.contains("install -m 644 dist/udev/60-capture-iio.rules \"$stage/lib/udev/rules.d/\""))
    }

    /// The rule's command as udev runs it, on a fake `iio:device0` directory: the attributes a
    /// buffer is set up with become the group's with the owner's permissions; the rest (values,
    /// `name`) is left alone.
    @Test(.enabled(if: getuid() == 0, "chgrp to another group needs root, as udev is"))
    func theRulesCommandChangesTheBufferAttributesOnly() throws {
        let rule = try #require(Self.rules(try String(contentsOfFile: Self.path, encoding: .utf8)).first ?? nil)
        let run = try #require(rule.first { $0.key == "RUN" }?.value)
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("capture-udev-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let device = scratch + "/sys/devices/platform/i2c/iio:device0"
        let files: [(String, mode_t)] = [
            ("name", 0o444), ("in_accel_x_raw", 0o444), ("buffer0/enable", 0o644), ("buffer0/length", 0o644),
            ("buffer/enable", 0o644), ("scan_elements/in_accel_x_en", 0o644), ("scan_elements/in_accel_x_type", 0o444),
            ("trigger/current_trigger", 0o644), ("sampling_frequency", 0o644),
        ]
        for (file, mode) in files {
            let path = device + "/" + file
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            #expect(FileManager.default.createFile(atPath: path, contents: Data("0\n".utf8)))
            chmod(path, mode)
        }
        let gid = try Self.runCommand(run, on: device)
        func owner(_ file: String) -> (gid: gid_t, mode: mode_t) { Self.owner(device + "/" + file) }
        for file in ["buffer0/enable", "buffer0/length", "buffer/enable", "scan_elements/in_accel_x_en", "trigger/current_trigger", "sampling_frequency"] {
            #expect(owner(file).gid == gid && owner(file).mode == 0o664, "\(file)")
        }
        #expect(owner("scan_elements/in_accel_x_type").gid == gid && owner("scan_elements/in_accel_x_type").mode == 0o444)
        for file in ["name", "in_accel_x_raw"] {
            #expect(owner(file).gid != gid && owner(file).mode == 0o444, "\(file)")
        }
    }

    /// The LED rule (`dist/udev/60-capture-leds.rules`, issue 43): on every event but remove
    /// (setting a trigger sends a change event), the attributes the recorder writes become the
    /// unit's group's, the timer's delays that the kernel makes anew included.
    @Test(.enabled(if: getuid() == 0, "chgrp to another group needs root, as udev is"))
    func theLEDRuleHandsTheRecorderWhatItWrites() throws {
        let path = Repository.root + "/dist/udev/60-capture-leds.rules"
        let rules = Self.rules(try String(contentsOfFile: path, encoding: .utf8))
        #expect(rules.count == 1)
        let rule = try #require(rules.first ?? nil, "the rule does not parse")
        func value(_ key: String, _ op: String) -> String? { rule.first { $0.key == key && $0.op == op }?.value }
        #expect(value("SUBSYSTEM", "==") == "leds" && value("ACTION", "!=") == "remove")
        let run = try #require(value("RUN", "+="))
        #expect(run.replacingOccurrences(of: "$$", with: "").firstIndex(of: "$") == nil)
        let package = try String(contentsOfFile: Repository.root + "/scripts/package", encoding: .utf8)
        #expect(package.contains("install -m 644 dist/udev/60-capture-leds.rules \"$stage/lib/udev/rules.d/\""))
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("capture-udev-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let led = scratch + "/sys/devices/platform/leds/leds/led0"
        try FileManager.default.createDirectory(atPath: led, withIntermediateDirectories: true)
        for (file, mode) in [("trigger", 0o644), ("brightness", 0o644), ("delay_on", 0o644), ("delay_off", 0o644), ("max_brightness", 0o444)] {
            #expect(FileManager.default.createFile(atPath: led + "/" + file, contents: Data("0\n".utf8)))
            chmod(led + "/" + file, mode_t(mode))
        }
        let gid = try Self.runCommand(run, on: led)
        func owner(_ file: String) -> (gid: gid_t, mode: mode_t) { Self.owner(led + "/" + file) }
        for file in ["trigger", "brightness", "delay_on", "delay_off"] {
            #expect(owner(file).gid == gid && owner(file).mode == 0o664, "\(file)")
        }
        #expect(owner("max_brightness").gid != gid)
    }
}
