package import CaptureCore
package import CaptureGNSS
import Glibc
import SystemPackage

/// `capture gnss setup DEVICE`: asks a u-blox module what it is (`MON-VER`), then sends it the
/// ``UBloxSetupPlan`` one message at a time, each answered by `ACK-ACK`, refused by `ACK-NAK`
/// or left unanswered, and says which. The device is put in raw mode at the baud rate it has.
package struct UBloxSetup: Sendable {
    /// The receiver's device (`/dev/ttyACM0`).
    package var device: String
    /// The configured modality (the dynamic model follows it).
    package var modality: Modality
    /// The module's port capture reads; `nil`: from the device path (``UBloxPort/init(devicePath:)``).
    package var port: UBloxPort?
    /// Also keep the configuration in flash.
    package var save: Bool
    /// Only identify the module and say what would be sent.
    package var dryRun: Bool
    /// How long a step waits for its ACK, ms (u-blox answers within a second).
    package var answerTimeout: Int64 = 1_000
    /// How often MON-VER is asked before the module counts as silent (one answer timeout each).
    package var identifyAttempts = 3

    /// A setup of `device`.
    package init(device: String, modality: Modality, port: UBloxPort? = nil, save: Bool = false, dryRun: Bool = false) {
        self.device = device
        self.modality = modality
        self.port = port
        self.save = save
        self.dryRun = dryRun
    }

    /// Identifies the module and configures it (or, dry, says how it would).
    ///
    /// - Throws: ``DeviceError`` when the device cannot be opened, read or written, or no
    ///   u-blox module answers MON-VER.
    package func run() throws(DeviceError) -> UBloxSetupReport {
        let link = try UBloxLink(device: device)
        defer { link.close() }
        let module = try identify(link)
        let port = port ?? UBloxPort(devicePath: device)
        let plan = UBloxSetupPlan(module: module, modality: modality, port: port, save: save)
        var outcomes: [UBloxSetupReport.Step] = []
        for step in plan.steps {
            let outcome: UBloxSetupReport.Outcome = dryRun ? .notSent : try link.send(step.frame, timeout: answerTimeout)
            outcomes.append(.init(purpose: step.purpose, message: step.message, outcome: outcome, frame: hex(step.frame.bytes)))
        }
        return UBloxSetupReport(device: device, module: module, port: port, plan: plan, dryRun: dryRun, steps: outcomes)
    }

    /// What the module at `device` is, or `nil` when nothing answers MON-VER within `timeout` ms
    /// (`capture doctor` asks a receiver that sends NMEA).
    package static func identify(device: String, timeout: Int64) -> UBloxModule? {
        guard let link = try? UBloxLink(device: device) else { return nil }
        defer { link.close() }
        var setup = UBloxSetup(device: device, modality: .unknown)
        setup.answerTimeout = timeout
        setup.identifyAttempts = 1
        return try? setup.identify(link)
    }

    private func identify(_ link: UBloxLink) throws(DeviceError) -> UBloxModule {
        let poll = UBXFrame(messageClass: 0x0A, messageID: 0x04, payload: [])
        for _ in 0..<identifyAttempts {
            try link.write(poll.bytes)
            if let answer = try link.receive(timeout: answerTimeout, where: { $0.kind == UBXFrame.monVerKind && !$0.payload.isEmpty }),
                let module = UBloxModule(monVer: answer.payload)
            {
                return module
            }
        }
        let seconds = Double(answerTimeout * Int64(identifyAttempts)) / 1000
        throw DeviceError(
            path: device, action: "identify",
            reason: "no answer to UBX-MON-VER in \(seconds) s: not a u-blox module, or its port takes no UBX input")
    }

    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }.joined(separator: " ")
    }
}

/// What ``UBloxSetup/run()`` did.
package struct UBloxSetupReport: Sendable, Equatable, Codable {
    /// How a module answered one message.
    package enum Outcome: String, Sendable, Equatable, Codable {
        /// ACK-ACK.
        case acknowledged
        /// ACK-NAK: the module does not take that setting.
        case refused
        /// No ACK within the timeout.
        case unanswered
        /// A dry run.
        case notSent = "not sent"
    }

    /// One message and its answer.
    package struct Step: Sendable, Equatable, Codable {
        /// What it sets.
        package var purpose: String
        /// `CFG-VALSET`.
        package var message: String
        /// The answer.
        package var outcome: Outcome
        /// The frame, as hex bytes.
        package var frame: String
    }

    /// The device.
    package var device: String
    /// The module, as it said.
    package var module: UBloxModule
    /// The port the output was set up for.
    package var port: UBloxPort
    /// NAV-PVT's rate (Hz) asked for, HNR-PVT's where the module has it, and the dynamic model.
    package var navigationRate: Int, highNavigationRate: Int?, dynamicModel: String
    /// Nothing sent.
    package var dryRun: Bool
    /// Every message, in order.
    package var steps: [Step]
    /// Every message acknowledged (a dry run: none sent, so `true`).
    package var complete: Bool

    init(device: String, module: UBloxModule, port: UBloxPort, plan: UBloxSetupPlan, dryRun: Bool, steps: [Step]) {
        self.device = device
        self.module = module
        self.port = port
        navigationRate = plan.navigationRate
        highNavigationRate = plan.highNavigationRate
        dynamicModel = plan.dynamicModel.name
        self.dryRun = dryRun
        self.steps = steps
        complete = steps.allSatisfy { $0.outcome == .acknowledged || $0.outcome == .notSent }
    }
}

/// The device, raw (``ReceiverDevice``), written and read a frame at a time. Never stopped:
/// every wait has its timeout.
final class UBloxLink {
    let device: String
    private let receiver: ReceiverDevice
    private var splitter = UBXFrameSplitter()
    private var pending: [UBXFrame] = []
    private let never = StopSignal()

    init(device: String) throws(DeviceError) {
        self.device = device
        receiver = try ReceiverDevice(path: device, writable: true)
    }

    func close() { receiver.close() }

    func write(_ bytes: [UInt8]) throws(DeviceError) {
        let fd = FileDescriptor(rawValue: receiver.fd)
        do {
            _ = try bytes.withUnsafeBytes { try fd.writeAll($0) }
        } catch let error as Errno where error == .resourceTemporarilyUnavailable {
            // The tty's output buffer is full: wait for it to drain once, then try again.
            _ = tcdrain(receiver.fd)
            do {
                _ = try bytes.withUnsafeBytes { try fd.writeAll($0) }
            } catch {
                throw DeviceError(path: device, action: "write", reason: "\(error)")
            }
        } catch {
            throw DeviceError(path: device, action: "write", reason: "\(error)")
        }
    }

    /// Sends `frame` and waits for its ACK-ACK or ACK-NAK (whose payload names its class and id).
    func send(_ frame: UBXFrame, timeout: Int64) throws(DeviceError) -> UBloxSetupReport.Outcome {
        try write(frame.bytes)
        let answer = try receive(timeout: timeout) { reply in
            (reply.kind == UBloxSetupPlan.Kind.ackACK || reply.kind == UBloxSetupPlan.Kind.ackNAK)
                && reply.payload.count >= 2 && reply.payload[0] == frame.messageClass && reply.payload[1] == frame.messageID
        }
        guard let answer else { return .unanswered }
        return answer.kind == UBloxSetupPlan.Kind.ackACK ? .acknowledged : .refused
    }

    /// The first frame that `matches` within `timeout` ms; the receiver's other output (NMEA,
    /// NAV frames) is read and dropped.
    func receive(timeout: Int64, where matches: (UBXFrame) -> Bool) throws(DeviceError) -> UBXFrame? {
        let deadline = WallClock.now() + timeout
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            if let index = pending.firstIndex(where: matches) {
                let frame = pending[index]
                pending.removeSubrange(...index)
                return frame
            }
            pending.removeAll()
            let left = deadline - WallClock.now()
            if left <= 0 { return nil }
            switch try receiver.next(into: &buffer, stop: never, timeout: left) {
            case .bytes(let count):
                for case .frame(let frame) in splitter.push(buffer[0..<count]) { pending.append(frame) }
            case .nothing: continue
            case .stopped, .end: return nil
            }
        }
    }
}
