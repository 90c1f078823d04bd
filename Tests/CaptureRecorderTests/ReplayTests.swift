import CaptureCore
import CaptureSensors
import CaptureStorage
import Foundation
import Testing

@testable import CaptureRecorder

@Suite struct ReplayTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("capture-replay-\(UUID().uuidString)").path

    init() throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    func write(_ lines: [String], name: String = "ride.trace") throws -> String {
        let path = root + "/" + name
        try (([TraceFormat.magic] + lines).joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Everything stored for a measurement, as comparable values.
    func dump(_ store: Store, _ id: Int64) throws -> [String] {
        var lines = try store.events(of: id).map { "\($0)" } + store.tracks(of: id).map { "\($0)" }
        lines += try store.fixes(of: id).map { "\($0)" } + store.pressures(of: id).map { "\($0)" }
        for sensor in MotionSensor.allCases {
            try store.forEachBatch(of: id, sensor: sensor) { lines.append("\($0.sensor) \($0.track) \($0.count) \($0.data)") }
        }
        return lines
    }

    let ride = [
        "start 1000 CAR", "acc 1000 0 0 9.81", "fix 1000 52.5 13.4 30 4 6 10 90", "acc 1500 0.1 0 9.8",
        "prs 1600 1000.5", "acc 2100 0.2 0 9.8", "pause 2500", "acc 2600 0 0 9.81", "resume 3000",
        "gyr 3100 0.01 0 0.2", "fix 3200 52.5001 13.4 30 4 6 11 90", "modality 3300 walking", "stop 4000",
    ]

    @Test func replayStoresTheTraceThroughTheRecordingEngine() throws {
        let store = try Store(directory: root + "/data")
        let id = try Replay(path: try write(ride)).run(into: store)
        let record = try store.measurement(id)
        #expect(record.status == .finished)
        #expect(record.modality == "CAR")
        #expect(record.startTime == 1000 && record.endTime == 4000)
        #expect(
            try store.events(of: id).map(\.type) == [
                .lifecycleStart, .modalityTypeChange, .lifecyclePause, .lifecycleResume, .modalityTypeChange, .lifecycleStop,
            ])
        let counts = try store.counts(of: id)
        // The sample at 2600 arrived while paused and is dropped.
        #expect(counts.accelerometer == 3 && counts.gyroscope == 1 && counts.locations == 2 && counts.pressure == 1)
        #expect(try store.counts(of: id, track: 2).gyroscope == 1)
        // One flush per second of trace time: acc at 1000 and 1500 share a row, 2100 starts another.
        var rows: [Int] = []
        try store.forEachBatch(of: id, sensor: .accelerometer) { rows.append($0.count) }
        #expect(rows == [2, 1])
    }

    @Test func theSameTraceGivesTheSameStoredData() throws {
        let path = try write(ride)
        let first = try Store(directory: root + "/a")
        let second = try Store(directory: root + "/b")
        let a = try Replay(path: path).run(into: first)
        let b = try Replay(path: path).run(into: second)
        #expect(try dump(first, a) == dump(second, b))
        #expect(!(try dump(first, a)).isEmpty)
    }

    @Test func modalityOverrideAndDefaults() throws {
        let store = try Store(directory: root + "/data")
        let id = try Replay(path: try write(["acc 10 0 0 9.8", "acc 20 0 0 9.8"]), modality: .bus).run(into: store)
        let record = try store.measurement(id)
        #expect(record.modality == "BUS")
        #expect(record.startTime == 10 && record.endTime == 20)
        let plain = try Replay(path: try write(["acc 30 0 0 9.8"], name: "b.trace")).run(into: store)
        #expect(try store.measurement(plain).modality == "UNKNOWN")
    }

    @Test(arguments: [
        (["acc 1000 0 0 9.81", "acc 1100 0 0"], 3, "a number for the z axis (m/s²)"),
        (["acc 1000 0 0 9.81", "resume 1200"], 3, "a legal lifecycle mark"),
        (["acc 1000 0 0 9.81", "pause 1200", "pause 1300"], 4, "a legal lifecycle mark"),
        (["start 1000 CAR", "stop 1200", "acc 1300 0 0 9.8"], 4, "nothing after the stop mark"),
        (["acc 1000 0 0 9.81", "start 1200 CAR"], 3, "a legal lifecycle mark"),
    ])
    func aMalformedTraceLeavesNothingStored(lines: [String], line: Int, expected: String) throws {
        // Enough samples before the error that several flushes were committed.
        let many = (0..<500).map { "acc \(1000 + $0 * 10) 0 0 9.81" }
        let path = try write(lines.count > 1 ? [lines[0]] + many.dropFirst() + lines.dropFirst() : lines)
        let store = try Store(directory: root + "/data")
        do {
            _ = try Replay(path: path).run(into: store)
            Issue.record("the malformed trace was accepted")
        } catch let TraceFileError.malformed(errorPath, error) {
            #expect(errorPath == path)
            #expect(error.line == line + many.count - 1)
            #expect(error.expected == expected)
        }
        #expect(try store.measurements().isEmpty)
        #expect(try store.openMeasurement() == nil)
    }

    @Test func missingAndForeignFilesAreReportedWithoutStoringAnything() throws {
        let store = try Store(directory: root + "/data")
        #expect(throws: TraceFileError.self) { try Replay(path: root + "/absent.trace").run(into: store) }
        let foreign = root + "/foreign.trace"
        try "$GPRMC,...\n".write(toFile: foreign, atomically: true, encoding: .utf8)
        #expect(throws: TraceFileError.self) { try Replay(path: foreign).run(into: store) }
        let empty = root + "/empty.trace"
        try "".write(toFile: empty, atomically: true, encoding: .utf8)
        #expect(throws: TraceFileError.self) { try Replay(path: empty).run(into: store) }
        #expect(try store.measurements().isEmpty)
    }

    /// A store that fills up half way through a replay (a size-limited database standing in for
    /// a full disk): the replay fails with disk full, and neither the half-stored measurement nor
    /// anything committed before it is left behind or lost.
    @Test func replayThatFillsTheStoreLeavesNothingHalfStored() throws {
        let directory = root + "/data"
        let first = try Replay(path: try write(ride)).run(into: try Store(directory: directory))
        let before = try dump(try Store(directory: directory), first)
        var long = ["start 1000 CAR"]
        for tick in 0..<20_000 { long.append("acc \(1_000 + tick * 10) \(Double(tick % 97) / 7) -0.5 9.81") }
        let store = try Store(directory: directory, maximumSize: try Store(directory: directory).databaseSize() + 64 * 1024)
        #expect(throws: StoreError.diskFull(path: directory + "/capture.sqlite")) {
            _ = try Replay(path: try write(long, name: "long.trace")).run(into: store)
        }
        #expect(try store.measurements().map(\.id) == [first])
        #expect(try dump(store, first) == before)
        #expect(try store.integrityCheck() == "ok")
    }

    @Test func replayRefusesWhileAMeasurementIsOpen() throws {
        let store = try Store(directory: root + "/data")
        var engine = Recording()
        let id = try store.begin(try engine.apply(.start(.car), at: 1), sources: "")
        #expect(throws: StoreError.alreadyOpen(id)) { try Replay(path: try write(ride)).run(into: store) }
    }
}
