// What the recorder waits for, as values of their own: tries spaced in time, measurement ids
// reserved ahead, events a busy or full store keeps in the flush log, and room in a full store.
extension RecorderStateMachine {
    /// Tries at most one per interval: a try is due when the interval since the last has passed.
    struct Spacing: Sendable, Equatable {
        /// When the next try is due (host clock, ms).
        private(set) var next: Int64 = .min

        /// Whether a try is due at `now`; if it is, it is taken and the next is `interval` later.
        mutating func take(at now: Int64, every interval: Int64) -> Bool {
            guard now >= next else { return false }
            next = now + interval
            return true
        }

        /// The first try is due `interval` after `now`.
        mutating func restart(at now: Int64, every interval: Int64) {
            next = now + interval
        }
    }

    /// Measurement ids reserved in the store for rides to come (`ride.detect: auto`), so that a
    /// ride that begins while another process holds the store begins at once in the flush log
    /// under its id; its record, replayed after a power cut, makes the same measurement.
    struct IDReservations: Sendable, Equatable {
        /// Ids kept reserved ahead: a ride's end and the next one's begin while the store is
        /// busy, or a ride continued at its size limit and the next.
        static let ahead = 2

        /// The ids reserved and not taken, oldest first.
        private(set) var ids: [Int64] = []
        /// Whether a reservation is under way (asked of the store, not answered).
        private(set) var underWay = false
        /// The last id a ride took: an answer never gives it again.
        private(set) var lastTaken: Int64 = 0
        private var tries = Spacing()

        /// Whether a reservation is due at `now`: none under way, fewer than ``ahead`` ids held,
        /// and the last try at least `interval` ago. If it is, it is under way from now.
        mutating func due(at now: Int64, every interval: Int64) -> Bool {
            guard !underWay, ids.count < Self.ahead, tries.take(at: now, every: interval) else { return false }
            underWay = true
            return true
        }

        /// The store answered with `reserved` (empty: it failed, another process held the
        /// store); those a ride took already are left out.
        mutating func answered(_ reserved: [Int64]) {
            underWay = false
            guard !reserved.isEmpty else { return }
            ids = reserved.filter { $0 > lastTaken }
        }

        /// The next reserved id, taken by a ride that begins now; `nil` when none is.
        mutating func take() -> Int64? {
            guard !ids.isEmpty else { return nil }
            let id = ids.removeFirst()
            lastTaken = id
            return id
        }

        /// A ride began under `id` in an earlier recorder's flush log: it is taken, though the
        /// database still counts it reserved.
        mutating func takenEarlier(_ id: Int64) {
            lastTaken = max(lastTaken, id)
        }
    }

    /// What a busy (or full) store keeps waiting: lifecycle events durable in the flush log that
    /// the database has not taken, and the begin of a ride that found no id reserved (nothing
    /// of it is staged: its samples wait in the recording). Both are tried again, spaced.
    struct StoreWaits: Sendable, Equatable {
        /// Events wait in the flush log: a flush tries them again until they go in, and a
        /// recorder that stops with them waiting commits them before it exits.
        var events = false
        /// The ride's begin that waits for the store.
        var begin: Action?
        /// The tries of either.
        var tries = Spacing()
    }

    /// With `ride.detect: auto`, waiting armed for room in a store full of what may not go.
    struct RoomWait: Sendable, Equatable {
        /// The least time between two looks for room, ms: a look reads the store and may prune
        /// delivered rides.
        static let checkInterval: Int64 = 2_000

        /// Since when it waits; `nil` while there is room.
        private(set) var since: Int64?
        private var checks = Spacing()

        /// The store was found full at `now`: the wait starts, unless it is under way; the first
        /// look for room is ``checkInterval`` later.
        mutating func begin(at now: Int64) {
            guard since == nil else { return }
            since = now
            checks.restart(at: now, every: Self.checkInterval)
        }

        /// Whether a look for room is due at `now` (while waiting, one per ``checkInterval``).
        mutating func checkDue(at now: Int64) -> Bool {
            since != nil && checks.take(at: now, every: Self.checkInterval)
        }

        /// Room was found: the wait is over.
        mutating func end() {
            since = nil
        }
    }
}
