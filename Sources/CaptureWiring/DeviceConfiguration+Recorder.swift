package import CaptureConfig
package import CaptureCore
package import CaptureRecorder
package import CaptureSensors
package import CaptureStorage

/// What the device's configuration says about recording: the recorder's settings, the sources,
/// and what happens to a finished ride. `capture start`, the recorder process and every command
/// that finishes a measurement ask here, so that the configuration is read the same way by all.
extension DeviceConfiguration {
    /// The settings of a new recorder: each value given (from the command line) or, for nil, the
    /// configuration's (`capture.modality`, `capture.flush_interval`), with the retention policy
    /// and the ride rules.
    package func recorder(
        modality: Modality?, flushInterval milliseconds: Int64?, sourceOptions: SourceOptions, recordTrace: String?,
        maximumSize: ByteSize?, gnssTime: GNSSTimePolicy
    ) throws(DeviceConfigurationError) -> RecorderConfiguration {
        var configuration = RecorderConfiguration(
            directory: dataDirectory.value, modality: modality ?? self.modality.value, sources: [],
            sourceOptions: sourceOptions, recordTrace: recordTrace,
            flushInterval: milliseconds ?? Int64((flushInterval.value.seconds * 1000).rounded()),
            maximumSize: maximumSize, gnssTime: gnssTime)
        (configuration.retention, configuration.ride) = (try retention(), try ride())
        configuration.deliverAutomatically = try delivery().automatic
        configuration.logLevel = logLevel.value
        let fleet = try fleet()
        configuration.heartbeatEvery = fleet.pushURL == nil ? nil : Int64((fleet.interval.seconds * 1000).rounded())
        configuration.indicator = try indicator()
        configuration.button = try button()
        return configuration
    }

    /// The settings of a recorder continuing an interrupted measurement (`capture resume`): its
    /// sources are the measurement's own; the configuration's flush interval, ride rules and
    /// retention, and `maximumSize` (`--max-store-size`).
    package func recorder(resuming maximumSize: ByteSize?) throws(DeviceConfigurationError) -> RecorderConfiguration {
        try recorder(
            modality: nil, flushInterval: nil, sourceOptions: SourceOptions(), recordTrace: nil, maximumSize: maximumSize,
            gnssTime: .auto)
    }

    /// The source specs to record from: `chosen` (`--source`), else `capture.sources`, else every
    /// source found; each is said at info level (`-v`) with what it is.
    package func sources(_ chosen: [String], options: SourceOptions) throws -> [String] {
        let selection = try SourceRegistry.standard.select(chosen.isEmpty ? sources.value : chosen, options: options)
        for source in selection.announcements { Log.logger.info("using \(source.spec): \(source.summary)") }
        return selection.specs
    }

    /// With `upload.auto`: `capture sync` in the background, once a measurement has finished
    /// (``AutomaticDelivery``).
    package func deliverInBackground() throws(DeviceConfigurationError) {
        if try delivery().automatic { AutomaticDelivery.startLogged(directory: dataDirectory.value) }
    }
}

extension RecorderConfiguration {
    /// The recorder process (`capture _record`) on this configuration, which came whole with
    /// its command line: no file is read again. Each ride kept, and the measurement it leaves
    /// when it ends, is delivered as ``deliverInBackground()`` says.
    package func runProcess(recover: Bool, readiness: ReadinessPipe?) throws {
        Log.level = logLevel
        try RecorderProcess.run(self, recover: recover, readiness: readiness, rideEnded: { _ in deliverInBackground() })
        deliverInBackground()
    }

    /// What the recorder process does with each ride it ends and keeps, and with its measurement
    /// when it exits: with `upload.auto` (``deliverAutomatically``), `capture sync` in the
    /// background. The process reads no file for it: its configuration carries the policy.
    package func deliverInBackground() {
        if deliverAutomatically { AutomaticDelivery.startLogged(directory: directory) }
    }
}

extension AutomaticDelivery {
    /// Starts the delivery; what it did is said at info level, a failure to start as a warning.
    static func startLogged(directory: String) {
        switch start(directory: directory) {
        case .started(let pid, let log): Log.logger.info("delivering in the background (pid \(pid)); see \(log)")
        case .failed(let why): Log.logger.warning("cannot start the automatic delivery: \(why)")
        }
    }
}
