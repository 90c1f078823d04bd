import CaptureCore
import CaptureGNSS
import CaptureSensors
import CaptureTestSupport
import Foundation
import Testing

/// The modules the tests simulate, with version strings as such modules report them.
enum Modules {
    static let neoM8N = UBloxModule(
        software: "ROM CORE 3.01 (107888)", hardware: "00080000",
        extensions: ["FWVER=SPG 3.01", "PROTVER=18.00", "GPS;GLO;GAL;BDS", "SBAS;IMES;QZSS"])
    static let neoM8U = UBloxModule(
        software: "EXT CORE 3.01 (111141)", hardware: "00080000",
        extensions: ["ROM BASE 2.01 (75331)", "FWVER=UDR 1.00", "PROTVER=19.20", "MOD=NEO-M8U-0"])
    static let zedF9P = UBloxModule(
        software: "EXT CORE 1.00 (61ce84)", hardware: "00190000",
        extensions: ["ROM BASE 0x118B2060", "FWVER=HPG 1.32", "PROTVER=27.31", "MOD=ZED-F9P"])
    static let zedF9R = UBloxModule(
        software: "EXT CORE 1.00 (a59682)", hardware: "00190000",
        extensions: ["ROM BASE 0x118B2060", "FWVER=HPS 1.21", "PROTVER=33.21", "MOD=ZED-F9R"])
}

@Suite("u-blox setup: the module's identity and the frames that configure it")
struct UBloxSetupPlanTests {
    @Test("MON-VER: read back from its payload; generation, dead reckoning and HNR told from it")
    func identity() throws {
        for module in [Modules.neoM8N, Modules.neoM8U, Modules.zedF9P, Modules.zedF9R] {
            #expect(UBloxModule(monVer: module.monVerPayload) == module)
        }
        #expect(UBloxModule(monVer: [UInt8](repeating: 0x41, count: 39)) == nil)
        #expect(UBloxModule(monVer: [UInt8](repeating: 0x41, count: 41)) == nil)
        #expect(Modules.neoM8N.generation == .legacy && !Modules.neoM8N.deadReckoning)
        #expect(Modules.neoM8U.generation == .legacy && Modules.neoM8U.deadReckoning && Modules.neoM8U.hasHighRateNavigation)
        #expect(Modules.zedF9P.generation == .configurationItems && !Modules.zedF9P.deadReckoning)
        #expect(Modules.zedF9R.generation == .configurationItems && Modules.zedF9R.deadReckoning)
        #expect(!Modules.zedF9R.hasHighRateNavigation)
        #expect(Modules.neoM8U.description == "NEO-M8U-0 (UDR 1.00, protocol 19.20)")
    }

    @Test("frames on the wire as u-blox documents them: the MON-VER poll and CFG-RATE at 5 Hz")
    func knownFrames() {
        #expect(UBXFrame(messageClass: 0x0A, messageID: 0x04, payload: []).bytes == [0xB5, 0x62, 0x0A, 0x04, 0, 0, 0x0E, 0x34])
        let plan = UBloxSetupPlan(module: Modules.neoM8N, modality: .car, port: .usb, save: false)
        let rate = plan.steps.first { $0.message == "CFG-RATE" }
        #expect(rate?.frame.bytes == [0xB5, 0x62, 0x06, 0x08, 0x06, 0x00, 0xC8, 0x00, 0x01, 0x00, 0x01, 0x00, 0xDE, 0x6A])
    }

    @Test("an M8 dead-reckoning module: NAV-PVT, 2 Hz, the model, HNR-PVT at 10 Hz, ESF-RAW and ESF-INS, then CFG-CFG")
    func m8DeadReckoning() {
        let plan = UBloxSetupPlan(module: Modules.neoM8U, modality: .bicycle, port: .usb, save: false)
        #expect(plan.navigationRate == 2 && plan.highNavigationRate == 10 && plan.dynamicModel == .portable)
        let frames = plan.steps.map { [UInt8($0.frame.kind >> 8), UInt8($0.frame.kind & 0xFF)] + $0.frame.payload }
        #expect(frames[0] == [0x06, 0x01, 0x01, 0x07, 0x01])
        #expect(frames[1] == [0x06, 0x08, 0xF4, 0x01, 0x01, 0x00, 0x01, 0x00])
        #expect(frames[2].count == 2 + 36 && frames[2].prefix(5) == [0x06, 0x24, 0x01, 0x00, 0x00])
        #expect(frames[3] == [0x06, 0x5C, 10, 0, 0, 0])
        #expect(frames[4] == [0x06, 0x01, 0x28, 0x00, 0x01])
        #expect(frames[5] == [0x06, 0x01, 0x10, 0x03, 0x01])
        #expect(frames[6] == [0x06, 0x01, 0x10, 0x15, 0x01])
        #expect(frames[7] == [0x06, 0x09, 0, 0, 0, 0, 0x1F, 0x1F, 0, 0, 0, 0, 0, 0, 0x01])
        #expect(frames.count == 8)
        let saved = UBloxSetupPlan(module: Modules.neoM8U, modality: .bicycle, port: .usb, save: true)
        #expect(saved.steps.last?.frame.payload.last == 0x17)
        // A plain M8: 5 Hz, no HNR, no ESF; a car gets the automotive model.
        let plain = UBloxSetupPlan(module: Modules.neoM8N, modality: .car, port: .uart1, save: false)
        #expect(plain.steps.map(\.message) == ["CFG-MSG", "CFG-RATE", "CFG-NAV5", "CFG-CFG"])
        #expect(plain.steps[2].frame.payload[2] == 4)
    }

    @Test("M9/F9/M10 by CFG-VALSET: one message a concern, RAM and battery-backed RAM (flash with --save), the port's keys")
    func configurationItems() {
        let f9p = UBloxSetupPlan(module: Modules.zedF9P, modality: .bicycle, port: .uart1, save: false)
        #expect(f9p.steps.map(\.message) == ["CFG-VALSET", "CFG-VALSET", "CFG-VALSET"])
        #expect(f9p.steps[0].frame.payload == [0, 0x03, 0, 0, 0x01, 0x00, 0x21, 0x30, 0xC8, 0x00, 0x02, 0x00, 0x21, 0x30, 0x01, 0x00])
        #expect(f9p.steps[1].frame.payload == [0, 0x03, 0, 0, 0x07, 0x00, 0x91, 0x20, 0x01])
        #expect(f9p.steps[2].frame.payload == [0, 0x03, 0, 0, 0x21, 0x00, 0x11, 0x20, 10])
        let f9r = UBloxSetupPlan(module: Modules.zedF9R, modality: .eBike, port: .usb, save: true)
        #expect(f9r.navigationRate == 10 && f9r.dynamicModel == .escooter)
        #expect(f9r.steps[0].frame.payload == [0, 0x07, 0, 0, 0x04, 0x00, 0x21, 0x20, 10])
        #expect(f9r.steps[1].frame.payload == [0, 0x07, 0, 0, 0x09, 0x00, 0x91, 0x20, 0x01])
        #expect(f9r.steps[2].frame.payload == [0, 0x07, 0, 0, 0xA2, 0x02, 0x91, 0x20, 0x01, 0x17, 0x01, 0x91, 0x20, 0x01])
        #expect(f9r.steps[3].frame.payload == [0, 0x07, 0, 0, 0x21, 0x00, 0x11, 0x20, 12])
        #expect(UBloxSetupPlan.DynamicModel(.walking, module: Modules.zedF9P) == .pedestrian)
        #expect(UBloxPort(devicePath: "/dev/ttyACM0") == .usb && UBloxPort(devicePath: "/dev/ttyUSB0") == .uart1)
    }
}

@Suite("u-blox setup against a simulated module on a pty")
struct UBloxSetupRunTests {
    static let chatter = "$GNRMC,,V,,,,,,,,,,N*4D\r\n"

    @Test("an M8U: identified through its NMEA, every message sent in order and acknowledged")
    func m8() throws {
        let fake = try FakeUBloxReceiver(monVer: Modules.neoM8U.monVerPayload, chatter: Self.chatter)
        defer { fake.stop() }
        let report = try UBloxSetup(device: fake.path, modality: .bicycle).run()
        #expect(report.module == Modules.neoM8U)
        #expect(report.complete && report.steps.count == 8)
        #expect(report.steps.allSatisfy { $0.outcome == .acknowledged })
        let plan = UBloxSetupPlan(module: Modules.neoM8U, modality: .bicycle, port: .uart1, save: false)
        #expect(fake.received.map(\.kind) == [0x0A04] + plan.steps.map(\.frame.kind))
        #expect(Array(fake.received.dropFirst()) == plan.steps.map(\.frame))
    }

    @Test("an F9R that refuses the dynamic model and ignores nothing else: that step reported refused, the rest acknowledged")
    func f9Refusal() throws {
        let fake = try FakeUBloxReceiver(
            monVer: Modules.zedF9R.monVerPayload, chatter: Self.chatter,
            refuses: { $0.payload.count >= 8 && Array($0.payload[4..<8]) == [0x21, 0x00, 0x11, 0x20] })
        defer { fake.stop() }
        let report = try UBloxSetup(device: fake.path, modality: .bicycle, port: .usb, save: true).run()
        #expect(report.steps.map(\.outcome) == [.acknowledged, .acknowledged, .acknowledged, .refused])
        #expect(!report.complete)
        #expect(fake.received.dropFirst().allSatisfy { $0.kind == 0x068A && $0.payload[1] == 0x07 })
    }

    @Test("an unanswered message is reported as such; a dry run sends MON-VER only")
    func unansweredAndDryRun() throws {
        let fake = try FakeUBloxReceiver(monVer: Modules.neoM8N.monVerPayload, ignores: { $0.kind == 0x0624 })
        defer { fake.stop() }
        var setup = UBloxSetup(device: fake.path, modality: .walking)
        setup.answerTimeout = 300
        let report = try setup.run()
        #expect(report.steps.map(\.outcome) == [.acknowledged, .acknowledged, .unanswered, .acknowledged])
        let sent = fake.received.count
        let dry = try UBloxSetup(device: fake.path, modality: .walking, dryRun: true).run()
        #expect(dry.steps.allSatisfy { $0.outcome == .notSent } && dry.complete)
        #expect(fake.received.count == sent + 1 && fake.received.last?.kind == 0x0A04)
    }

    @Test("a receiver that does not answer MON-VER: a DeviceError saying so, nothing else sent")
    func silent() throws {
        let fake = try FakeUBloxReceiver(monVer: nil, chatter: Self.chatter)
        defer { fake.stop() }
        var setup = UBloxSetup(device: fake.path, modality: .bicycle)
        setup.answerTimeout = 200
        #expect { try setup.run() } throws: { error in
            (error as? DeviceError)?.action == "identify" && "\(error)".contains("no answer to UBX-MON-VER")
        }
        #expect(fake.received.map(\.kind) == [0x0A04, 0x0A04, 0x0A04])
        #expect(UBloxSetup.identify(device: fake.path, timeout: 200) == nil)
        #expect(throws: DeviceError.self) { try UBloxSetup(device: "/nonexistent/tty", modality: .bicycle).run() }
    }
}
