import CaptureSensors
import CaptureTestSupport
@testable import capture
import Testing

/// What `capture gnss setup` prints, made from the report of a setup of a simulated module.
struct GNSSSetupTextTests {
    static let neoM8U = UBloxModule(
        software: "EXT CORE 3.01 (111141)", hardware: "00080000",
        extensions: ["ROM BASE 2.01 (75331)", "FWVER=UDR 1.00", "PROTVER=19.20", "MOD=NEO-M8U-0"])

    @Test func theModuleThenAnAlignedLineAMessageThenTheOutcome() throws {
        let fake = try FakeUBloxReceiver(monVer: Self.neoM8U.monVerPayload, chatter: "$GNRMC,,V,,,,,,,,,,N*4D\r\n")
        defer { fake.stop() }
        let report = try UBloxSetup(device: fake.path, modality: .bicycle).run()
        let lines = report.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "\(fake.path): NEO-M8U-0 (UDR 1.00, protocol 19.20), CFG messages")
        #expect(lines.count == report.steps.count + 3 && lines.last == "", "\(report.text)")
        for (line, step) in zip(lines.dropFirst(), report.steps) {
            let outcome = step.outcome.rawValue + String(repeating: " ", count: 12 - step.outcome.rawValue.count)
            #expect(line.hasPrefix("  " + outcome + " " + step.message) && line.hasSuffix(" " + step.purpose), "\(line)")
        }
        #expect(lines[lines.count - 2] == "set up: 8 messages acknowledged")
        let dry = try UBloxSetup(device: fake.path, modality: .bicycle, dryRun: true).run()
        #expect(dry.text.hasSuffix("\ndry run: 8 messages not sent\n"), "\(dry.text)")
    }

    @Test func aRefusedMessageIsCountedWithTheOthersInEffect() throws {
        let fake = try FakeUBloxReceiver(monVer: Self.neoM8U.monVerPayload, chatter: "$GNRMC,,V,,,,,,,,,,N*4D\r\n", refuses: { $0.kind == 0x0624 })
        defer { fake.stop() }
        let report = try UBloxSetup(device: fake.path, modality: .bicycle).run()
        #expect(report.text.hasSuffix("\n1 of 8 messages refused or unanswered; the others are in effect\n"), "\(report.text)")
        #expect(report.text.contains("\n  refused      CFG-NAV5   "), "\(report.text)")
    }
}
