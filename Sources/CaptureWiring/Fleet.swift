package import CaptureConfig
import CaptureCore
import CaptureRecorder
package import CaptureSensors
package import CaptureStorage
package import CaptureUpload

/// The box's heartbeat for the fleet (docs/fleet.md): `fleet.*` from the configuration, the
/// figures of the data directory, pushed by `capture sync` passes (the timer's wake-ups) when
/// `fleet.interval` has passed, and by `capture metrics --push` at once.
extension DeviceConfiguration {
    /// `fleet.*`, as the heartbeat's settings.
    package func fleet() throws(DeviceConfigurationError) -> FleetSettings {
        do {
            return try FleetSettings(reading: settings(under: "fleet"))
        } catch {
            throw DeviceConfigurationError(error)
        }
    }

    /// Pushes the heartbeat of the data directory (its store made if there is none yet, so that
    /// a box is seen before its first ride) if `fleet.push_url` is set and, unless `force`, one
    /// is due. Returns whether one went out.
    package func beat(version: String, force: Bool, now: Int64 = WallClock.now()) async throws -> Bool {
        let settings = try fleet()
        let directory = dataDirectory.value
        guard settings.pushURL != nil, force || Heartbeat.isDue(directory: directory, interval: settings.interval, now: now) else {
            return false
        }
        let store = try Store(directory: directory)
        let metrics = try Self.metrics(of: store, directory: directory, now: now)
        let status = try? RecorderControl(directory: directory).status()
        let budget = try retention().maxStoreSize?.bytes
        let power = BoardPower(root: "/")
        let clock = HostClock.read()
        var board = Heartbeat.Board()
        (board.underVoltageNow, board.underVoltageSinceBoot) = (power.underVoltageNow, power.underVoltageSinceBoot)
        (board.clockSynchronized, board.clockEstimatedError) = (clock.synchronized, clock.estimatedError)
        board.gnssOffset = status?.recorder?.clock?.offsetMs.map { Double($0) / 1000 }
        board.flushes = status?.recorder?.flushes
        let text = Heartbeat.text(
            metrics: metrics, now: now, interval: settings.interval, storeBudget: budget, board: board,
            state: Self.fleetState(status), version: version)
        try await Heartbeat.push(text, device: try store.deviceID(), settings: settings)
        Heartbeat.pushed(directory: directory, at: now)
        return true
    }

    /// `capture metrics` of the data directory `directory` (its store, nil while there is none):
    /// the store's figures, the login's lifetime and whether its recorder waits for room.
    package static func metrics(of store: Store?, directory: String, now: Int64 = WallClock.now()) throws -> String {
        let login = LoginLifetime.report(loginFile: directory + "/" + LoginLifetime.fileName, now: now)
        return try DeliveryMetrics.text(
            of: store, now: now, login: login, waitingForRoom: RecorderControl(directory: directory).waitingForRoom)
    }

    /// The state a heartbeat reports: between rides (`ride.detect: auto`) the recorder's
    /// (`armed`, `waiting-for-room`), else the measurement's (`idle`, `capturing`, `paused`,
    /// `interrupted`); `unknown` when the data directory could not be read.
    static func fleetState(_ status: StatusReport?) -> String {
        guard let status else { return "unknown" }
        if let ride = status.ride, ride.state == .armed || ride.state == .waitingForRoom { return ride.state.rawValue }
        return status.state.rawValue
    }
}
