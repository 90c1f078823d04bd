import CaptureCore
import CaptureStorage
import CaptureTestSupport
import Foundation
import Testing

@testable import CaptureRecorder

/// Under-voltage seen during a ride (issue 44, item 4): journaled in the ride's `recorder.jsonl`
/// and counted by the store, once per measurement, in a flush-log record of its own.
@Suite struct UnderVoltageTests: StateMachineSuite {
    @Test func theFirstReportInEachRideIsJournaledAndCountedAndNothingWhileArmed() {
        var world = RideRulesTests.World(machine: RideRulesTests.armed())
        #expect(world.machine.underVoltage(at: Self.t0).isEmpty, "armed, no ride: nothing to count it with")
        world.run(5, speed: 5)
        guard case .recording(let id) = world.machine.state, id != 0 else {
            Issue.record("no ride began: \(world.machine.state)")
            return
        }
        let now = Self.t0 + 5_500
        let first = world.machine.underVoltage(at: now)
        #expect(first.count == 2)
        #expect(first.first == .journal(.underVoltage, at: now))
        guard case .stage(let flush, let steps) = first.last else {
            Issue.record("expected a record of its own, got \(first)")
            return
        }
        #expect(flush.isEmpty && steps == [.countRide(.sawUnderVoltage)], "the count alone, no samples taken with it")
        #expect(world.machine.underVoltage(at: now + 1000).isEmpty, "once per measurement")
        // The ride ends (standing past ride.end_after_still) and another begins: counted again.
        world.run(15, speed: 0)
        world.run(5, speed: 5)
        #expect(world.machine.underVoltage(at: Self.t0 + 26_000).count == 2)
    }

    /// A measurement continued after a power cut whose journal says under-voltage was seen is
    /// not counted again; one whose journal does not say so is.
    @Test func aMeasurementContinuedAfterACutIsCountedOnce() throws {
        for (saw, counted) in [(true, false), (false, true)] {
            var machine = Machine(sources: [.init(name: "iio")], flushInterval: 1000)
            var open = Machine.Interrupted(
                id: 4, startTime: Self.t0, lifecycle: Lifecycle(restoring: .capturing(track: 2), modality: .bicycle),
                committedEnd: Self.t0 + 5000, correction: nil)
            open.sawUnderVoltage = saw
            _ = try machine.recover(open, at: Self.t0 + 60_000)
            #expect(machine.underVoltage(at: Self.t0 + 61_000).isEmpty != counted, "journal says seen: \(saw)")
        }
    }

    @Test func aRecorderReadsTheBoardAtItsFlushesAndTheStoreCountsIt() throws {
        let board = FakeSysfs(prefix: "capture-board")
        let firmware = board.path + "/sys/devices/platform/soc/soc:firmware"
        try FileManager.default.createDirectory(atPath: firmware, withIntermediateDirectories: true)
        try "0x0\n".write(toFile: firmware + "/get_throttled", atomically: true, encoding: .utf8)
        let harness = try RecorderHarness(flushInterval: 50, board: board.path)
        harness.feed.feed(acceleration(20))
        usleep(300_000)
        // Under-voltage now (bit 0) and since boot (bit 16), as a Pi's firmware says it.
        try "0x50005\n".write(toFile: firmware + "/get_throttled", atomically: true, encoding: .utf8)
        usleep(300_000)
        harness.feed.feed(acceleration(20))
        harness.command(.stop)
        #expect(harness.waitForEnd() != nil, "the recorder did not stop")
        #expect(try harness.store.rideCounts()[.sawUnderVoltage] == 1)
        let journal = try String(
            contentsOfFile: Store.attachmentDirectory(of: harness.measurement, in: harness.directory) + "/" + RecorderJournal.name,
            encoding: .utf8)
        #expect(JournalLine.lines(of: journal).filter { $0.event == "under_voltage" }.count == 1, "\(journal)")
        #expect(try harness.committed().accelerometer == 40, "the count's record took no samples away")
    }

    @Test func aBoardThatSaysNothingOfItsPowerIsNotRead() throws {
        let board = FakeSysfs(prefix: "capture-board")
        let harness = try RecorderHarness(flushInterval: 50, board: board.path)
        #expect(harness.recorder.board == nil)
        harness.command(.stop)
        _ = harness.waitForEnd()
    }
}
