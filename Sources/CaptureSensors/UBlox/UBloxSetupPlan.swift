package import CaptureCore
package import CaptureGNSS

/// The port of the module capture reads it through; configuration items name it (an M8's
/// `CFG-MSG` in its short form applies to the port it arrives on).
package enum UBloxPort: String, Sendable, Equatable, Codable, CaseIterable {
    case usb, uart1, uart2

    /// The likely port for a device path: `ttyACM*` is the module's own USB, anything else a
    /// serial line (a USB-serial adapter, a board's UART) on the module's first UART.
    package init(devicePath: String) {
        self = devicePath.contains("ttyACM") ? .usb : .uart1
    }

    /// Offset of this port's key within a `CFG-MSGOUT` message's five keys (I2C, UART1, UART2,
    /// USB, SPI, in that order).
    var messageOutputOffset: UInt32 {
        switch self {
        case .uart1: 1
        case .uart2: 2
        case .usb: 3
        }
    }
}

/// One configuration message of a setup: what it does and the frame that does it.
package struct UBloxSetupStep: Sendable, Equatable {
    /// What it sets, for a person: `NAV-PVT every navigation epoch`.
    package var purpose: String
    /// The frame sent; the module answers it with ACK-ACK or ACK-NAK.
    package var frame: UBXFrame

    /// A step.
    package init(_ purpose: String, _ frame: UBXFrame) {
        self.purpose = purpose
        self.frame = frame
    }

    /// `CFG-MSG`, `CFG-VALSET`, …
    package var message: String {
        switch frame.kind {
        case UBloxSetupPlan.Kind.cfgMSG: "CFG-MSG"
        case UBloxSetupPlan.Kind.cfgRATE: "CFG-RATE"
        case UBloxSetupPlan.Kind.cfgNAV5: "CFG-NAV5"
        case UBloxSetupPlan.Kind.cfgHNR: "CFG-HNR"
        case UBloxSetupPlan.Kind.cfgCFG: "CFG-CFG"
        case UBloxSetupPlan.Kind.cfgVALSET: "CFG-VALSET"
        default: String(frame.kind, radix: 16)
        }
    }
}

/// What `capture gnss setup` sends to a u-blox module so that it suits riding: UBX NAV-PVT at
/// 5 Hz (or the module's maximum), HNR-PVT where the module has it, ESF output (raw IMU and
/// INS) on dead-reckoning modules, and the dynamic platform model of the modality. Pure: the
/// frames from the module's identity and the wishes.
///
/// Message layouts (u-blox 8 / M8 protocol specification UBX-13003221, and the F9/M10
/// interface descriptions for the configuration items):
/// - `CFG-MSG` (0x06 0x01), short form: message class, id, rate on the current port (1 = every
///   navigation epoch).
/// - `CFG-RATE` (0x06 0x08): measRate (ms, U2), navRate (cycles, U2), timeRef (U2, 1 = GPS).
/// - `CFG-NAV5` (0x06 0x24), 36 bytes: mask (X2, bit 0 applies the dynamic model), dynModel
///   (U1, offset 2); the fields whose mask bit is clear are ignored.
/// - `CFG-HNR` (0x06 0x5C): highNavRate (Hz, U1), 3 reserved bytes.
/// - `CFG-CFG` (0x06 0x09): clearMask, saveMask, loadMask (X4 each), deviceMask (X1: bit 0
///   battery-backed RAM, 1 flash, 2 EEPROM, 4 SPI flash). An M8 keeps a `CFG-*` change in RAM
///   only, so every setup ends with a save to battery-backed RAM (and, with `--save`, flash).
/// - `CFG-VALSET` (0x06 0x8A): version 0, layers (X1: bit 0 RAM, 1 battery-backed RAM, 2
///   flash), 2 reserved bytes, then key (U4) and value pairs, the value as wide as the key's
///   size bits (28…30: 1 one bit in a byte, 2 one byte, 3 two, 4 four, 5 eight bytes). A
///   message is taken or refused whole, so each concern is its own message: a model the
///   firmware lacks does not cost the rates.
package struct UBloxSetupPlan: Sendable, Equatable {
    /// The module the plan is for.
    package var module: UBloxModule
    /// The steps, in the order they are sent.
    package var steps: [UBloxSetupStep]
    /// The navigation rate asked for (Hz): NAV-PVT's, or on an F9 dead-reckoning module its
    /// priority navigation rate.
    package var navigationRate: Int
    /// The HNR-PVT rate asked for (Hz), on modules that have it.
    package var highNavigationRate: Int?
    /// The dynamic platform model (`CFG-NAV5` dynModel, `CFG-NAVSPG-DYNMODEL`).
    package var dynamicModel: DynamicModel

    /// The message kinds used (`class << 8 | id`).
    package enum Kind {
        package static let ackNAK: UInt16 = 0x0500
        package static let ackACK: UInt16 = 0x0501
        package static let cfgMSG: UInt16 = 0x0601
        package static let cfgRATE: UInt16 = 0x0608
        package static let cfgCFG: UInt16 = 0x0609
        package static let cfgNAV5: UInt16 = 0x0624
        package static let cfgHNR: UInt16 = 0x065C
        package static let cfgVALSET: UInt16 = 0x068A
    }

    /// Dynamic platform models (`CFG-NAV5` dynModel, `CFG-NAVSPG-DYNMODEL`; the same numbers).
    package enum DynamicModel: UInt8, Sendable, Equatable, Codable {
        case portable = 0, pedestrian = 3, automotive = 4, bike = 10, escooter = 12

        /// The model for a modality on a module: bike on M9/F9/M10 (an F9 dead-reckoning
        /// module, whose fusion knows automotive, e-scooter and lawn mower only, gets e-scooter),
        /// portable for bicycles on an M8 (it has no bike model), automotive for motor vehicles
        /// and trains, pedestrian for walking, portable when unknown.
        package init(_ modality: Modality, module: UBloxModule) {
            switch modality {
            case .bicycle, .eBike, .cargoBike, .eCargoBike:
                if module.generation == .legacy {
                    self = .portable
                } else {
                    self = module.deadReckoning ? .escooter : .bike
                }
            case .car, .motorbike, .bus, .train: self = .automotive
            case .walking: self = .pedestrian
            case .unknown: self = .portable
            }
        }

        /// `bike`.
        package var name: String {
            switch self {
            case .portable: "portable"
            case .pedestrian: "pedestrian"
            case .automotive: "automotive"
            case .bike: "bike"
            case .escooter: "e-scooter"
            }
        }
    }

    /// The plan for `module`, read through `port`, ridden as `modality`; `save` also keeps the
    /// configuration in flash (it always goes to battery-backed RAM as well as the running one).
    package init(module: UBloxModule, modality: Modality, port: UBloxPort, save: Bool) {
        self.module = module
        dynamicModel = DynamicModel(modality, module: module)
        switch module.generation {
        case .legacy:
            // The M8 dead-reckoning firmware computes its GNSS solution at up to 2 Hz and
            // fills in between with HNR-PVT; the others take 5 Hz.
            navigationRate = module.deadReckoning ? 2 : 5
            highNavigationRate = module.hasHighRateNavigation ? 10 : nil
            steps = Self.legacySteps(module: module, rate: navigationRate, highRate: highNavigationRate, model: dynamicModel, save: save)
        case .configurationItems:
            // An F9 dead-reckoning module sends NAV-PVT at its priority navigation rate.
            navigationRate = module.deadReckoning ? 10 : 5
            highNavigationRate = nil
            steps = Self.itemSteps(module: module, rate: navigationRate, port: port, model: dynamicModel, save: save)
        }
    }

    private static func legacySteps(
        module: UBloxModule, rate: Int, highRate: Int?, model: DynamicModel, save: Bool
    ) -> [UBloxSetupStep] {
        func message(_ kind: UInt16, _ name: String) -> UBloxSetupStep {
            UBloxSetupStep("\(name) every navigation epoch", cfgMSG(kind, rate: 1))
        }
        var steps = [
            message(UBXMessage.Kind.navPVT, "NAV-PVT"),
            UBloxSetupStep(
                "navigation at \(rate) Hz", frame(Kind.cfgRATE, le16(UInt16(1000 / rate)) + le16(1) + le16(1))),
            UBloxSetupStep(
                "dynamic model \(model.name)",
                frame(Kind.cfgNAV5, le16(0x0001) + [model.rawValue] + [UInt8](repeating: 0, count: 33))),
        ]
        if let highRate {
            steps.append(UBloxSetupStep("high-rate navigation at \(highRate) Hz", frame(Kind.cfgHNR, [UInt8(highRate), 0, 0, 0])))
            steps.append(message(UBXMessage.Kind.hnrPVT, "HNR-PVT"))
        }
        if module.deadReckoning {
            steps.append(message(UBXMessage.Kind.esfRaw, "ESF-RAW"))
            steps.append(message(esfINS, "ESF-INS"))
        }
        // Every section (ports, messages, INF, navigation, receiver, sensors, …) to the devices.
        let devices: UInt8 = save ? 0x17 : 0x01
        steps.append(
            UBloxSetupStep(
                save ? "keep in battery-backed RAM and flash" : "keep in battery-backed RAM",
                frame(Kind.cfgCFG, le32(0) + le32(0x0000_1F1F) + le32(0) + [devices])))
        return steps
    }

    private static func itemSteps(
        module: UBloxModule, rate: Int, port: UBloxPort, model: DynamicModel, save: Bool
    ) -> [UBloxSetupStep] {
        let layers: UInt8 = save ? 0x07 : 0x03
        func valset(_ purpose: String, _ items: [(UInt32, UInt64)]) -> UBloxSetupStep {
            UBloxSetupStep(purpose, frame(Kind.cfgVALSET, [0, layers, 0, 0] + items.flatMap { item(key: $0.0, value: $0.1) }))
        }
        let offset = port.messageOutputOffset
        var steps: [UBloxSetupStep] = []
        if module.deadReckoning {
            steps.append(valset("priority navigation (NAV-PVT) at \(rate) Hz", [(Key.rateNavPriority, UInt64(rate))]))
        } else {
            steps.append(valset("navigation at \(rate) Hz", [(Key.rateMeasurement, UInt64(1000 / rate)), (Key.rateNavigation, 1)]))
        }
        steps.append(valset("NAV-PVT every navigation epoch on \(port.rawValue)", [(Key.navPVTOutput + offset, 1)]))
        if module.deadReckoning {
            steps.append(
                valset(
                    "ESF-RAW and ESF-INS on \(port.rawValue)", [(Key.esfRawOutput + offset, 1), (Key.esfINSOutput + offset, 1)]))
        }
        steps.append(valset("dynamic model \(model.name)", [(Key.dynamicModel, UInt64(model.rawValue))]))
        return steps
    }

    /// Configuration keys (F9/M10 interface descriptions, "Configuration items"); the output
    /// keys are the I2C one of five (I2C, UART1, UART2, USB, SPI).
    enum Key {
        static let rateMeasurement: UInt32 = 0x3021_0001  // CFG-RATE-MEAS, U2 ms
        static let rateNavigation: UInt32 = 0x3021_0002  // CFG-RATE-NAV, U2 cycles
        static let rateNavPriority: UInt32 = 0x2021_0004  // CFG-RATE-NAV_PRIO, U1 Hz
        static let dynamicModel: UInt32 = 0x2011_0021  // CFG-NAVSPG-DYNMODEL, E1
        static let navPVTOutput: UInt32 = 0x2091_0006  // CFG-MSGOUT-UBX_NAV_PVT_I2C
        static let esfINSOutput: UInt32 = 0x2091_0114  // CFG-MSGOUT-UBX_ESF_INS_I2C
        static let esfRawOutput: UInt32 = 0x2091_029F  // CFG-MSGOUT-UBX_ESF_RAW_I2C
    }

    /// UBX-ESF-INS (0x10 0x15).
    static let esfINS: UInt16 = 0x1015

    /// A key and its value, the value as wide as the key's size bits say.
    static func item(key: UInt32, value: UInt64) -> [UInt8] {
        let width = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8][Int(key >> 28 & 0x7)] ?? 1
        return le32(key) + (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    static func cfgMSG(_ kind: UInt16, rate: UInt8) -> UBXFrame {
        frame(Kind.cfgMSG, [UInt8(kind >> 8), UInt8(kind & 0xFF), rate])
    }

    static func frame(_ kind: UInt16, _ payload: [UInt8]) -> UBXFrame {
        UBXFrame(messageClass: UInt8(kind >> 8), messageID: UInt8(kind & 0xFF), payload: payload)
    }

    static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    static func le32(_ value: UInt32) -> [UInt8] { le16(UInt16(value & 0xFFFF)) + le16(UInt16(value >> 16)) }
}
