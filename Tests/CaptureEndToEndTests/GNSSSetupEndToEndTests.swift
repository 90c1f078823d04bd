import CaptureTestSupport
import Foundation
import Testing

/// `capture gnss setup` against a simulated u-blox module on a pty, through the built binary.
@Suite struct GNSSSetupEndToEndTests {
    /// A MON-VER payload: software (30 bytes), hardware (10), extensions (30 each), NUL-padded.
    static func monVer(_ software: String, _ hardware: String, _ extensions: [String]) -> [UInt8] {
        func padded(_ text: String, _ width: Int) -> [UInt8] { Array(text.utf8) + [UInt8](repeating: 0, count: width - text.utf8.count) }
        return padded(software, 30) + padded(hardware, 10) + extensions.flatMap { padded($0, 30) }
    }

    static let zedF9P = monVer("EXT CORE 1.00 (61ce84)", "00190000", ["FWVER=HPG 1.32", "PROTVER=27.31", "MOD=ZED-F9P"])

    @Test func anF9IsSetUpByConfigurationItemsAndSaysSoInJSON() throws {
        let fake = try FakeUBloxReceiver(monVer: Self.zedF9P, chatter: "$GNGGA,,,,,,0,00,99.99,,,,,,*56\r\n")
        defer { fake.stop() }
        let cli = CLI()
        let object = try cli.json(["gnss", "setup", fake.path, "--modality", "bicycle", "--save"])
        let module = object["module"] as? [String: Any]
        #expect(module?["hardware"] as? String == "00190000")
        #expect(object["dynamicModel"] as? String == "bike" && object["navigationRate"] as? Int == 5)
        #expect(object["complete"] as? Bool == true && object["dryRun"] as? Bool == false)
        let steps = object["steps"] as? [[String: Any]] ?? []
        #expect(steps.count == 3)
        #expect(steps.allSatisfy { $0["outcome"] as? String == "acknowledged" && $0["message"] as? String == "CFG-VALSET" })
        // RAM, battery-backed RAM and flash.
        #expect(fake.received.dropFirst().allSatisfy { $0.kind == 0x068A && $0.payload[1] == 0x07 })
    }

    @Test func aRefusedMessageIsPrintedAndEndsWithExitCode1() throws {
        let fake = try FakeUBloxReceiver(monVer: Self.zedF9P, refuses: { $0.payload.count > 8 && $0.payload[4] == 0x21 })
        defer { fake.stop() }
        let result = try CLI().run(["gnss", "setup", fake.path, "--modality", "WALKING"])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stdout.contains("ZED-F9P (HPG 1.32, protocol 27.31), configuration items"), "\(result.stdout)")
        #expect(result.stdout.contains("refused      CFG-VALSET dynamic model pedestrian"), "\(result.stdout)")
        #expect(result.stdout.contains("1 of 3 messages refused or unanswered"), "\(result.stdout)")
    }

    @Test func noUBloxAnswerIsExitCode69WithOneLine() throws {
        let fake = try FakeUBloxReceiver(monVer: nil)
        defer { fake.stop() }
        let result = try CLI().run(["gnss", "setup", fake.path, "--dry-run"])
        #expect(result.status == 69)
        #expect(result.stderr.hasPrefix("capture: cannot identify \(fake.path): no answer to UBX-MON-VER in 3.0 s"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stdout.isEmpty)
    }
}
