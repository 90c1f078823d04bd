import CaptureCore
import CaptureTransfer
import Foundation
import GRDB
import Testing

@testable import CaptureStorage

/// Where a measurement too large for the payload limit is cut (PartPlan, pure), and the cut in
/// the store: the parts' fixes, samples and events together are the original's.
@Suite struct PartPlanTests {
    /// Fixes once a second, a batch of 2 000 bytes per second from half a second before each fix.
    func ride(seconds: Int) -> (items: [PartPlan.Item], fixes: [Int64]) {
        var items: [PartPlan.Item] = []
        var fixes: [Int64] = []
        for second in 0..<Int64(seconds) {
            let time = second * 1000
            fixes.append(time)
            items.append(.init(first: time, last: time, bytes: TransferSizeBound.perFix))
            items.append(.init(first: time - 500, last: time + 499, bytes: 2_000))
        }
        return (items, fixes)
    }

    /// The bound of the part `[from, to)`: every item reaching into it.
    func bound(_ items: [PartPlan.Item], from: Int64, to: Int64) -> Int64 {
        TransferSizeBound.bytes(raw: items.filter { $0.last >= from && $0.first < to }.reduce(0) { $0 + $1.bytes })
    }

    @Test func aMeasurementWithinTheLimitIsNotCut() throws {
        let (items, fixes) = ride(seconds: 10)
        let plan = try #require(PartPlan(items: items, candidates: fixes, fixTimes: fixes, limit: 1 << 20))
        #expect(plan.cuts.isEmpty)
    }

    @Test func everyPartIsWithinTheLimitWithTwoFixesAndTheCutsAreGreedy() throws {
        let (items, fixes) = ride(seconds: 600)
        let limit: Int64 = 400_000
        let plan = try #require(PartPlan(items: items, candidates: fixes, fixTimes: fixes, limit: limit))
        #expect(plan.cuts.count >= 3, "\(plan.cuts)")
        #expect(plan.cuts == plan.cuts.sorted())
        let bounds = [Int64.min] + plan.cuts + [Int64.max]
        for (from, to) in zip(bounds, bounds.dropFirst()) {
            #expect(bound(items, from: from, to: to) <= limit, "part from \(from)")
            #expect(fixes.filter { $0 >= from && $0 < to }.count >= 2)
        }
        // Greedy: the next fix would have taken each part over the limit.
        for (from, cut) in zip(bounds, plan.cuts) {
            #expect(bound(items, from: from, to: cut + 1000) > limit, "part from \(from) could reach past \(cut)")
        }
    }

    @Test func aBatchSpanningACutCountsInBothParts() throws {
        // Two fixes in a single batch that spans the whole ride: every part holds the batch.
        let fixes: [Int64] = [0, 1000, 2000, 3000]
        let items = fixes.map { PartPlan.Item(first: $0, last: $0, bytes: 100) } + [.init(first: 0, last: 3000, bytes: 30_000)]
        let limit = TransferSizeBound.bytes(raw: 30_200)
        let plan = try #require(PartPlan(items: items, candidates: fixes, fixTimes: fixes, limit: limit))
        #expect(plan.cuts == [2000])
    }

    @Test func noPlanWhenOneStretchIsOverTheLimitByItself() {
        let (items, fixes) = ride(seconds: 20)
        #expect(PartPlan(items: items, candidates: fixes, fixTimes: fixes, limit: TransferSizeBound.overhead + 1_000) == nil)
        // Nor with fewer than two fixes for each part.
        #expect(PartPlan(items: items, candidates: [], fixTimes: fixes, limit: TransferSizeBound.bytes(raw: 20_000)) == nil)
    }
}

@Suite struct MeasurementPartsTests {
    let directory = TemporaryDirectory()

    /// A ride of `seconds` seconds: 100 Hz accelerometer and 20 Hz gyroscope, one fix and one
    /// pressure sample a second, a flush a second that does not line up with the fixes (so cuts
    /// split batches), a pause and a resume, a modality change, then a stop.
    func ride(_ store: Store, seconds: Int, base: Int64 = 1_700_000_000_000) throws -> Int64 {
        var engine = Recording()
        let id = try store.begin(try engine.apply(.start(.bicycle), at: base), sources: "test")
        var time = base
        for second in 0..<seconds {
            if second == seconds / 3 {
                try store.commit(try engine.apply(.pause, at: time), to: id)
                time += 5_000
                try store.commit(try engine.apply(.resume, at: time), to: id)
            }
            if second == seconds / 2 { try store.commit(try engine.apply(.modality(.walking), at: time + 250), to: id) }
            for step in 0..<100 {
                let t = time + Int64(step) * 10
                engine.ingest(.motion(.accelerometer, MotionSample(timestamp: t, x: sin(Double(t) / 300), y: 0.5, z: 9.81)))
                if step % 5 == 0 { engine.ingest(.motion(.gyroscope, MotionSample(timestamp: t, x: 0.01 * Double(step), y: 0, z: 0))) }
                if step == 50 {
                    engine.ingest(
                        .fix(Fix(timestamp: t, latitude: 51.05 + Double(second) * 3e-5, longitude: 13.73, horizontalAccuracy: 4, speed: 5)))
                    engine.ingest(.pressure(PressureSample(timestamp: t, hectopascals: 1000 + Double(second) / 100)))
                }
            }
            try store.commit(engine.takeFlush(), to: id)
            time += 1000
        }
        try store.commit(try engine.apply(.stop, at: time), to: id)
        return id
    }

    func samples(_ store: Store, _ id: Int64, _ sensor: MotionSensor) throws -> [MotionSample] {
        var all: [MotionSample] = []
        try store.forEachBatch(of: id, sensor: sensor) { all += try Store.samples(of: $0) }
        return all
    }

    func batchCount(_ store: Store, _ id: Int64, _ sensor: MotionSensor) throws -> Int {
        var count = 0
        try store.forEachBatch(of: id, sensor: sensor) { _ in count += 1 }
        return count
    }

    @Test func thePartsTogetherAreTheOriginal() throws {
        let store = try Store(directory: directory.path, durability: .relaxed)
        let id = try ride(store, seconds: 240)
        let fixes = try store.fixes(of: id)
        let pressures = try store.pressures(of: id)
        let motion = try MotionSensor.allCases.map { try samples(store, id, $0) }
        let events = try store.events(of: id)
        let batches = try MotionSensor.allCases.map { try batchCount(store, id, $0) }.reduce(0, +)
        let whole = try store.transferFile(for: id, directory: directory.path)
        let limit = whole.size / 2 + TransferSizeBound.overhead

        let parts = try #require(try store.cutIntoParts(id, limit: limit))
        #expect(parts.count >= 2, "\(parts)")
        #expect(parts.first == id)
        // Each part within the limit, in files that decode.
        var decodedFixes: [Fix] = []
        for (index, part) in parts.enumerated() {
            let file = try store.transferFile(for: part, directory: directory.path)
            #expect(file.size <= limit)
            let decoded = try TransferFileDecoder.decode([UInt8](try #require(FileManager.default.contents(atPath: file.path))))
            decodedFixes += decoded.fixes
            #expect(try store.part(of: part) == MeasurementPart(original: id, number: index + 1, count: parts.count))
            // Its own lifecycle: START and the modality first, STOP last, tracks numbered from 1.
            let own = try store.events(of: part)
            #expect(own.first?.type == .lifecycleStart && own.dropFirst().first?.type == .modalityTypeChange, "\(own)")
            #expect(own.last?.type == .lifecycleStop)
            let record = try store.measurement(part)
            let tracks = try store.tracks(of: part)
            #expect(tracks.map(\.number) == Array(1...record.trackCount))
            #expect(tracks.first?.startTime == record.startTime && tracks.last?.endTime == record.endTime)
            #expect(record.status == .finished)
            // What it holds was taken between its start and its end.
            let end = try #require(record.endTime)
            let times = try store.fixes(of: part).map(\.timestamp) + store.pressures(of: part).map(\.timestamp)
                + MotionSensor.allCases.flatMap { try samples(store, part, $0).map(\.timestamp) }
            #expect(!times.isEmpty && times.allSatisfy { $0 >= record.startTime && (part == parts.last ? $0 <= end : $0 < end) })
        }
        // Nothing lost, nothing twice, in order.
        #expect(try parts.flatMap { try store.fixes(of: $0) } == fixes)
        #expect(decodedFixes.map(\.timestamp) == fixes.map(\.timestamp))
        #expect(try parts.flatMap { try store.pressures(of: $0) } == pressures)
        for (sensor, original) in zip(MotionSensor.allCases, motion) {
            #expect(try parts.flatMap { try samples(store, $0, sensor) } == original, "\(sensor)")
        }
        // The cuts fall inside flushes: the batches spanning them were split.
        #expect(try parts.flatMap { part in try MotionSensor.allCases.map { try batchCount(store, part, $0) } }.reduce(0, +) > batches)
        // The original's events, but for the lifecycle the cuts add; each part ends where the next begins.
        let added: Set<EventType> = [.lifecycleStart, .lifecycleStop]
        let kept = try parts.flatMap { try store.events(of: $0) }.filter { !added.contains($0.type) }
        #expect(kept.filter { $0.type != .modalityTypeChange } == events.filter { !added.contains($0.type) && $0.type != .modalityTypeChange })
        let records = try parts.map { try store.measurement($0) }
        for (left, right) in zip(records, records.dropFirst()) { #expect(left.endTime == right.startTime) }
        #expect(records.first?.startTime == events.first?.timestamp && records.last?.endTime == events.last?.timestamp)
        #expect(try store.partTotals() == PartTotals(measurementsCut: 1, parts: parts.count))
        // The list shows them.
        let listed = try store.listEntries(held: nil)
        #expect(listed.compactMap(\.part).last == MeasurementPart(original: id, number: parts.count, count: parts.count))
    }

    @Test func aMeasurementWithinTheLimitStaysWhole() throws {
        let store = try Store(directory: directory.path, durability: .relaxed)
        let id = try ride(store, seconds: 20)
        #expect(try store.cutIntoParts(id, limit: 100 << 20) == [id])
        #expect(try store.part(of: id) == nil)
        #expect(try store.partTotals() == PartTotals())
    }

    @Test func noCutWhenNoPartCanBeWithinTheLimit() throws {
        let store = try Store(directory: directory.path, durability: .relaxed)
        let id = try ride(store, seconds: 20)
        let fixes = try store.fixes(of: id)
        #expect(try store.cutIntoParts(id, limit: 1_000) == nil)
        #expect(try store.fixes(of: id) == fixes)
        #expect(try store.measurements().count == 1)
    }

    @Test func migrationV13MakesThoseSkippedForSizeWaitAgain() throws {
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        let queue = try DatabaseQueue(path: directory.path + "/capture.sqlite")
        try Schema.migrator.migrate(queue, upTo: "v12: ride counts")
        let reasons = [
            "its transfer file is 200 bytes, over the collector's payload limit of 100 (collector.payload_limit)",
            "fewer than two locations",
        ]
        try queue.write { db in
            for (index, reason) in reasons.enumerated() {
                try db.execute(
                    sql: "INSERT INTO measurement (id, status, modality, start_ts, end_ts) VALUES (?, 'finished', 'CAR', 0, 1)",
                    arguments: [index + 1])
                try db.execute(
                    sql: """
                        INSERT INTO upload (measurement_id, status, reason, created_at, updated_at)
                        VALUES (?, 'skipped', ?, 0, 0)
                        """, arguments: [index + 1, reason])
            }
        }
        try queue.close()
        let store = try Store(directory: directory.path, durability: .relaxed)
        #expect(try store.upload(of: 1).status == .pending)
        #expect(try store.upload(of: 1).reason == nil)
        #expect(try store.upload(of: 2).status == .skipped)
    }

    @Test func anOpenMeasurementIsNotCut() throws {
        let store = try Store(directory: directory.path, durability: .relaxed)
        var engine = Recording()
        let id = try store.begin(try engine.apply(.start(.bicycle), at: 1_000), sources: "test")
        #expect(try store.cutIntoParts(id, limit: 1) == [id])
    }
}
