import Testing

@testable import CaptureRecorder

/// The recorder's waits as values of their own (issue 48, item 4): spaced tries, ids reserved
/// ahead, and the wait for room in a full store.
@Suite struct RecorderWaitsTests {
    typealias Machine = RecorderStateMachine

    @Test func spacingTakesOneTryPerInterval() {
        var spacing = Machine.Spacing()
        let times: [Int64] = [5_000, 5_999, 6_000, 9_500, 10_000, 10_500]
        // A try that came late is counted from when it came, not made up in a burst.
        #expect(times.map { spacing.take(at: $0, every: 1_000) } == [true, false, true, true, false, true])
        spacing.restart(at: 20_000, every: 2_000)
        #expect([21_999, 22_000].map { spacing.take(at: $0, every: 2_000) } == [false, true])
    }

    @Test func reservationsAreAskedOneAtATimeSpacedAndOnlyWhileFewerThanTwoAreHeld() {
        var reservations = Machine.IDReservations()
        // Under way: not asked again, however long the answer takes.
        #expect([0, 10_000].map { reservations.due(at: $0, every: 1_000) } == [true, false])
        reservations.answered([4, 5])
        #expect(reservations.ids == [4, 5] && !reservations.underWay)
        let whileTwoAreHeld = reservations.due(at: 20_000, every: 1_000)
        #expect(!whileTwoAreHeld)
        let taken = reservations.take()
        #expect(taken == 4 && reservations.lastTaken == 4)
        let onceOneIsTaken = reservations.due(at: 20_000, every: 1_000)
        #expect(onceOneIsTaken)
        // A failed reservation (the store was busy) keeps what is held and is tried again later.
        reservations.answered([])
        #expect(reservations.ids == [5])
        #expect([20_500, 21_000].map { reservations.due(at: $0, every: 1_000) } == [false, true])
        // The store answers with every id it holds reserved, the taken one too: that is left out.
        reservations.answered([4, 5, 6])
        #expect(reservations.ids == [5, 6])
        #expect((0..<3).map { _ in reservations.take() } == [5, 6, nil])
    }

    @Test func anIdAnEarlierRecorderBeganUnderIsNeverGivenAgain() {
        var reservations = Machine.IDReservations()
        reservations.takenEarlier(7)
        reservations.takenEarlier(3)
        #expect(reservations.lastTaken == 7)
        _ = reservations.due(at: 0, every: 1_000)
        reservations.answered([6, 7, 8])
        let taken = reservations.take()
        #expect(taken == 8)
    }

    @Test func theWaitForRoomStartsOnceAndLooksForRoomEveryTwoSeconds() {
        var room = Machine.RoomWait()
        let whileThereIsRoom = room.checkDue(at: 0)
        #expect(!whileThereIsRoom)
        room.begin(at: 10_000)
        room.begin(at: 15_000)
        #expect(room.since == 10_000, "found full again while waiting: the wait goes on from its start")
        #expect([11_999, 12_000, 13_000, 14_000].map { room.checkDue(at: $0) } == [false, true, false, true])
        room.end()
        let afterRoomWasFound = room.checkDue(at: 100_000)
        #expect(room.since == nil && !afterRoomWasFound)
    }

    @Test func waitingEventsAreTriedAtMostOncePerSecond() {
        var machine = Machine(sources: [.init(name: "gpsd")], flushInterval: 250)
        machine.waits.events = true
        let tries = [1_000, 1_250, 1_750, 2_000].map { machine.retryDue(at: $0) }
        #expect(tries == [[machine.commitStagedNow], [], [], [machine.commitStagedNow]])
        #expect(machine.eventsWaiting)
    }
}
