package import CaptureCore
package import CaptureSensors
import Foundation
import Synchronization

/// Runs a source on its own thread for a while and counts what it delivers (`capture doctor`).
package enum SourceWatch {
    /// What a source delivered while it was watched.
    package struct Result: Sendable {
        /// Samples by motion sensor, fixes and pressure samples.
        package var motion: [MotionSensor: Int] = [:]
        package var fixes = 0
        package var pressure = 0
        /// Why the source stopped, if it failed.
        package var error: String?
        /// How long it was watched.
        package var seconds = 0.0
        /// The host clock against the fixes of a live receiver.
        package var clock = GNSSClock()

        /// Everything delivered.
        package var total: Int { motion.values.reduce(0, +) + fixes + pressure }

        /// `acc 100.0/s, fix 1.0/s`.
        package func summary(seconds: Double) -> String {
            var parts = MotionSensor.allCases.compactMap { sensor in
                motion[sensor].map { "\(sensor.shortName) \(String(format: "%.1f", Double($0) / seconds))/s" }
            }
            if fixes > 0 { parts.append("fix \(String(format: "%.1f", Double(fixes) / seconds))/s") }
            if pressure > 0 { parts.append("prs \(String(format: "%.1f", Double(pressure) / seconds))/s") }
            return parts.joined(separator: ", ")
        }
    }

    /// Runs `source` for `seconds` (and up to 5 s more for it to stop), counting what it delivers.
    package static func watch(_ source: any SampleSource, seconds: Double) -> Result {
        let state = Mutex(Result())
        let stop = StopSignal()
        let done = DispatchSemaphore(value: 0)
        let measuresClock = source.clock == .gnss
        let started = Date()
        let sink = ClosureSink(stop: stop) { samples in
            state.withLock { result in
                for sample in samples {
                    switch sample {
                    case .motion(let sensor, _): result.motion[sensor, default: 0] += 1
                    case .fix(let fix):
                        result.fixes += 1
                        if measuresClock { _ = result.clock.observe(gnss: fix.timestamp, host: WallClock.now()) }
                    case .pressure: result.pressure += 1
                    }
                }
            }
        }
        let thread = Thread {
            do {
                try source.run(into: sink)
            } catch {
                state.withLock { $0.error = "\(error)" }
            }
            done.signal()
        }
        thread.start()
        let ended = done.wait(timeout: .now() + seconds) == .success
        // A source waiting in poll wakes at once (it was asked every 100 ms before).
        stop.stop()
        if !ended { _ = done.wait(timeout: .now() + 5) }
        var result = state.withLock { $0 }
        result.seconds = max(Date().timeIntervalSince(started), 0.001)
        return result
    }
}
