public import ArgumentParser
import CaptureCore
import CaptureSensors

/// `capture gnss`: the receiver itself.
struct GNSS: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gnss", abstract: "Set up a GNSS receiver for recording.", subcommands: [GNSSSetup.self])
}

/// `capture gnss setup DEVICE`: a u-blox module set up for riding (`UBloxSetup`).
struct GNSSSetup: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "setup",
        abstract: "Configure a u-blox receiver for riding: UBX NAV-PVT at 5 Hz, HNR-PVT and ESF where it has them.",
        discussion: """
            Asks the module what it is (UBX-MON-VER), then sends one message per setting and \
            prints how the module answered each: acknowledged (ACK-ACK), refused (ACK-NAK) or \
            unanswered (nothing within 1 s). An M8 or older is set by CFG-MSG, CFG-RATE, \
            CFG-NAV5 (and CFG-HNR), then saved to battery-backed RAM by CFG-CFG; an M9, F9 or \
            M10 by CFG-VALSET into RAM and battery-backed RAM. --save writes flash as well.

            What is set: NAV-PVT at 5 Hz (2 Hz with HNR-PVT at 10 Hz on an M8 dead-reckoning \
            module, 10 Hz priority navigation on an F9 one); ESF-RAW and ESF-INS on \
            dead-reckoning modules; the dynamic model of capture.modality (--modality): bike for \
            bicycles (portable on an M8, e-scooter on an F9 dead-reckoning module), automotive \
            for motor vehicles and trains, pedestrian for walking, else portable. \
            docs/live-sensors.md has the details.

            Example: capture gnss setup /dev/ttyACM0 --modality BICYCLE --dry-run

            EXIT CODES: 0 every message acknowledged (or --dry-run); 1 one refused or \
            unanswered (the others are in effect); 64 bad arguments; 69 the device cannot be \
            opened or no u-blox module answers; 74 no permission for the device.
            """)

    @OptionGroup var data: DataDirectoryOptions
    @OptionGroup var output: OutputOptions

    @Argument(help: "The receiver's device, e.g. /dev/ttyACM0.") var device: String
    @Option(help: "The modality whose dynamic model to set (any case); default: capture.modality.") var modality: Modality?
    @Option(help: "The M9/F9/M10 port whose output to set (default: usb for ttyACM*, else uart1).") var port: UBloxPort?
    @Flag(help: "Also keep the configuration in flash.") var save = false
    @Flag(help: "Identify the module and print what would be sent; send nothing else.") var dryRun = false

    func run() throws {
        let modality = try modality ?? data.device().modality.value ?? .unknown
        let report = try UBloxSetup(device: device, modality: modality, port: port, save: save, dryRun: dryRun).run()
        if output.json { try printJSON(report) } else { print(report.text, terminator: "") }
        if !report.complete { throw ExitCode(1) }
    }
}

extension UBloxPort: ExpressibleByArgument {}
