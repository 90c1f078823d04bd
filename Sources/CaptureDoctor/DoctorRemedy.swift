package import CaptureUpload

/// What helps with a problem a check found. The doctor names the remedy; the front end words it
/// with its own commands (`capture doctor`: `DoctorCommand.swift`). ``description`` is a wording
/// that names no command.
package enum DoctorRemedy: Sendable, Equatable, CustomStringConvertible {
    /// The configuration is broken: fix the value the error names.
    case fixConfiguration
    /// The store cannot be opened: find out why, and keep a copy first.
    case inspectUnopenableStore
    /// A measurement is open but its recorder is gone: finish it, or continue it.
    case finishInterrupted
    /// Uploads were left mid-way: resume them.
    case resumeUploads
    /// Uploads failed: see why, and upload again.
    case retryFailedUploads
    /// No source is configured and none was found.
    case connectSensor
    /// A source spec could not be made into a source.
    case checkSourceSpec
    /// A source opened, then failed.
    case checkDevicePermissions
    /// A source delivered nothing.
    case checkDeviceDelivers
    /// A device delivers fewer samples than the rate it was set to.
    case pickAvailableRate
    /// A u-blox module sends its factory output (NMEA at 1 Hz): set it up for riding (UBX
    /// NAV-PVT at 5 Hz, HNR and ESF where it has them); the device's path.
    case setUpReceiver(String)
    /// The collector refused the credentials, or there are none.
    case credentials(CredentialsRemedy)
    /// The login is not an offline token and ends with its SSO session: allow the client the
    /// `offline_access` scope at the issuer, then log in again.
    case allowOfflineAccess
    /// The login ends within days unless a sync pass refreshes it.
    case refreshLogin
    /// The recorder waits for room in a store full of rides the collector has not taken:
    /// deliver them, or remove some.
    case makeRoom
    /// The board browns out or throttles: a steadier supply (or cooling).
    case steadyPower
    /// Swap on the SD card wears it: turn it off, or swap to memory.
    case keepSwapOffCard
    /// journald writes to the SD card without a cap.
    case capJournal
    /// The data directory's file system on the SD card is mounted without `noatime` or `commit=`;
    /// its mount point.
    case mountForCard(String)
    /// The clock is not synchronised and there is no RTC.
    case synchronizeClock
    /// The SD card is near or past the end of its life.
    case replaceCard
    /// An LED of `indicator.leds` is not there, or this user cannot drive it.
    case checkLEDs
    /// `button.device` is not there, or this user cannot read it.
    case checkButton
    /// The page's token file can be read by others: its path.
    case restrictPageToken(String)
    /// Something else holds the page's port, or `web.listen` is not an address of the box.
    case choosePagePort

    /// What to do, without naming a command.
    package var description: String {
        switch self {
        case .fixConfiguration: "fix the value it names (docs/configuration.md)"
        case .inspectUnopenableStore: "find out why it cannot be opened; keep a copy before anything else"
        case .finishInterrupted: "stop the measurement, or resume it"
        case .resumeUploads: "resume them: they continue where the collector stands"
        case .retryFailedUploads: "see why each failed, then upload again"
        case .connectSensor: "connect a sensor, or set capture.sources"
        case .checkSourceSpec: "check the spec and the device"
        case .checkDevicePermissions: "check the device and its permissions"
        case .checkDeviceDelivers: "is the device delivering? (`gpsmon` for a receiver)"
        case .pickAvailableRate: "the device may not keep that rate: pick one of its available rates"
        case .setUpReceiver: "configure the module for UBX NAV-PVT at 5 Hz (docs/live-sensors.md)"
        case .credentials(let remedy): remedy.description
        case .allowOfflineAccess: "allow the client the offline_access scope at the issuer, then log in again"
        case .refreshLogin: "let a sync pass refresh it (one does once half its life has passed)"
        case .makeRoom: "let the collector take the rides waiting, or remove some; the recorder records again by itself"
        case .steadyPower: "use a supply that holds 5.1 V under load and a short, thick cable; with good power, cool the board"
        case .keepSwapOffCard: "turn the swap file off (`dphys-swapfile swapoff`, `dphys-swapfile uninstall`), or use zram"
        case .capJournal: "set SystemMaxUse=50M (or Storage=volatile) in /etc/systemd/journald.conf.d/"
        case .mountForCard(let mountPoint): "add noatime,commit=60 to the options of \(mountPoint) in /etc/fstab"
        case .synchronizeClock: "enable systemd-timesyncd for when the box is online, or fit an RTC; rides take GNSS time once there is a fix"
        case .replaceCard: "copy the data off and replace the card (an industrial or high-endurance one lasts longer)"
        case .checkLEDs:
            "name LEDs of /sys/class/leds in indicator.leds (a Raspberry Pi's gpio-led overlay makes one), writable by "
                + "the recorder's user (docs/device.md, \"LEDs\")"
        case .checkButton:
            "name the button's device under /dev/input/by-path or by-id in button.device (a Raspberry Pi's gpio-key "
                + "overlay makes one), readable by the recorder's user, in the group input (docs/device.md, \"The button\")"
        case .restrictPageToken(let path): "chmod 600 \(path)"
        case .choosePagePort: "set web.listen to a free port of an address of the box (docs/device.md, \"The page\")"
        }
    }
}
