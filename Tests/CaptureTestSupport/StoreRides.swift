package import CaptureCore
package import CaptureStorage

/// Small rides committed to a store, for the tests of what reads them back.
package enum StoreRides {
    /// Two tracks (a pause between), a change to walking at the resume, pressure on track 1:
    /// three fixes about 11 m apart in all, from 1 000 to 4 000 ms (open without `stop`).
    package static func twoTracks(in store: Store, stop: Bool = true) throws -> Int64 {
        var engine = Recording()
        let id = try store.begin(try engine.apply(.start(.car), at: 1_000), sources: "test")
        _ = engine.ingest(.fix(Fix(timestamp: 1_100, latitude: 51, longitude: 13, horizontalAccuracy: 5, speed: 4)))
        _ = engine.ingest(.pressure(PressureSample(timestamp: 1_200, hectopascals: 1000.5)))
        _ = engine.ingest(.fix(Fix(timestamp: 2_100, latitude: 51.0001, longitude: 13, horizontalAccuracy: 5, speed: 4)))
        _ = engine.ingest(.pressure(PressureSample(timestamp: 2_200, hectopascals: 1000.0)))
        try store.commit(try engine.apply(.pause, at: 2_500), to: id)
        try store.commit(try engine.apply(.resume, at: 3_000), to: id)
        try store.commit(try engine.apply(.modality(.walking), at: 3_000), to: id)
        _ = engine.ingest(.fix(Fix(timestamp: 3_100, latitude: 51.0002, longitude: 13, horizontalAccuracy: 5, speed: 2)))
        try store.commit(engine.takeFlush(), to: id)
        if stop { try store.commit(try engine.apply(.stop, at: 4_000), to: id) }
        return id
    }
}
