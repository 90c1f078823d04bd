package import CaptureStorage
import Foundation

extension Replay {
    /// A replay's result for scripts (`capture replay --json`): the new measurement, its samples,
    /// how long the replay took and its pace.
    package struct Summary: Codable, Sendable {
        package var measurement: Int64
        package var samples: Int
        package var seconds: Double
        package var samplesPerSecond: Double
    }

    /// ``run(into:)``, timed.
    package func runTimed(into store: Store) throws -> Summary {
        let began = Date()
        let id = try run(into: store)
        let seconds = Date().timeIntervalSince(began)
        let samples = try store.counts(of: id).total
        return Summary(measurement: id, samples: samples, seconds: seconds, samplesPerSecond: Double(samples) / seconds)
    }
}
