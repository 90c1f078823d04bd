import CaptureCore
import CaptureSensors
import CaptureStorage
import Foundation
import Logging
import Glibc

/// The body of a recorder process (`capture _record`, or `capture start --foreground`): takes
/// the data directory's recorder lock, opens the store, prepares the sources, starts or
/// recovers the measurement, says so, and records until the measurement is stopped.
package enum RecorderProcess {
    /// Runs a recorder to its end.
    ///
    /// - Parameters:
    ///   - recover: continue the open measurement (after its recorder died) instead of starting one.
    ///   - endingInterrupted: first finish the open measurement whose recorder died, as a power
    ///     cut ends a ride (``Recorder/endInterrupted()``), then start or arm as without it.
    ///   - readiness: the pipe to the launching process, told ``Readiness/ready(measurement:)``
    ///     once capturing has begun or ``Readiness/failed(_:)`` if it could not.
    ///   - announce: called with the measurement id once capturing has begun, or 0 once the
    ///     recorder waits armed (`ride.detect: auto`).
    ///   - rideEnded: called with each ride that ended and was kept (`ride.detect: auto`).
    /// - Throws: whatever stopped it: an error from the store, the sources or the lifecycle
    ///   before capturing began, or the ``StoreError`` that ended it (a full disk, say).
    package static func run(
        _ configuration: RecorderConfiguration, recover: Bool = false, endingInterrupted: Bool = false,
        readiness: ReadinessPipe? = nil,
        rideEnded: @escaping @Sendable (Int64) -> Void = { _ in }, announce: (Int64) -> Void = { _ in }
    ) throws {
        var began = false
        do {
            let directory = configuration.directory
            try PrivateFiles.createDirectory(directory)
            guard let lock = try RecorderLock(directory: directory) else {
                throw LaunchFailure(kind: .recorderRunning, message: "another recorder is running in \(directory)")
            }
            let indicator = leds(configuration.indicator.leds)
            let store: Store
            do {
                store = try Store(directory: directory, maximumSize: configuration.storeCeiling?.bytes)
            } catch {
                // The store cannot be opened (a medium read-only or failing): shown until fixed.
                indicator?.leaveShowingProblem()
                throw error
            }
            let registry = SourceRegistry.standard
            // A scan waits in the kernel at most half a flush interval, so it is committed at most
            // 1.5 flush intervals after it was taken.
            var options = configuration.sourceOptions
            options.maxLatency = Double(configuration.flushInterval) / 2000
            var sources = try configuration.sources.map { spec throws(SourceError) in
                try registry.makeSource(spec, options: options)
            }
            var ride = configuration.ride
            if ride.detect == .auto {
                // Motion decides the rides: a trace plays as a receiver, its rules at its pace.
                sources = sources.map { $0.detectingRides() }
                ride = ride.playing(at: pace(of: sources))
            }
            let trace = try configuration.recordTrace.map { path throws(DeviceError) in try TraceTap(path: path) }
            let recorder = Recorder(
                directory: directory, store: store, sources: sources, flushInterval: configuration.flushInterval,
                trace: trace, gnssTime: configuration.gnssTime, retention: configuration.retention,
                ceiling: configuration.storeCeiling?.bytes, ride: ride, rideEnded: rideEnded,
                heartbeat: configuration.heartbeatEvery.map { ($0, { pushHeartbeat(directory: directory) }) }, board: "/",
                indicator: indicator, button: ButtonReader(configuration.button))
            try recorder.listen()
            let id: Int64
            do {
                let modality = configuration.modality ?? initialModality(of: sources)
                if endingInterrupted { try recorder.endInterrupted() }
                if recover {
                    id = try recorder.recoverInterrupted()
                } else if configuration.ride.detect == .auto {
                    try recorder.arm(modality: modality)
                    id = 0
                } else {
                    id = try recorder.startNew(modality: modality)
                }
            } catch {
                recorder.abandon()
                throw error
            }
            readiness?.report(.ready(measurement: id))
            began = true
            announce(id)
            let failure = recorder.run()
            _ = consume lock
            if let failure { throw failure }
            if let sources = recorder.nothingRecorded { throw RecorderFailure.nothingRecorded(sources: sources) }
        } catch {
            if !began { readiness?.report(.failed(LaunchFailure(error))) }
            throw error
        }
    }

    /// The sources' pace (``SampleSource/pace``) when they all share one; else real time.
    static func pace(of sources: [any SampleSource]) -> Double {
        let paces = Set(sources.map(\.pace))
        return paces.count == 1 ? paces.first ?? 1 : 1
    }

    /// The first `start` mark's modality among sources that drive the lifecycle, else UNKNOWN.
    static func initialModality(of sources: [any SampleSource]) -> Modality {
        for source in sources {
            if let modality = try? source.initialModality() { return modality }
        }
        return .unknown
    }

    /// The LEDs of `indicator.leds`, if any; one that cannot be opened is a warning, and the
    /// recorder goes on without them.
    private static func leds(_ names: [String]) -> IndicatorLEDs? {
        guard !names.isEmpty else { return nil }
        do {
            return try IndicatorLEDs(names: names)
        } catch {
            recorderLog.warning("the LEDs show nothing: \(error)")
            return nil
        }
    }

    /// With `fleet.push_url`: `capture metrics --push` in the background, so that the push never
    /// holds up recording (``RecorderConfiguration/heartbeatEvery``); its lines go to sync.log.
    private static func pushHeartbeat(directory: String) {
        if case .failed(let why) = AutomaticDelivery.start(directory: directory, command: ["metrics", "--push"]) {
            recorderLog.warning("cannot push the heartbeat: \(why)")
        }
    }
}
