import CaptureCore
import CaptureStorage
import CaptureUpload
import Foundation
import Synchronization
import Testing

/// The sync pass (`capture sync`) in-process: decisions, the metered hold, the unreachable
/// collector and its backoff, a delivery to an in-process collector, the uploader lock.
@Suite struct DeliveryPassTests {
    static let clock: Int64 = 1_800_000_000_000

    /// A pass over `device` with settings for `url`, a fixed clock and no NetworkManager.
    func pass(_ device: Device, url: String = "http://127.0.0.1:9/", policy: DeliveryPolicy = .standard) -> DeliveryPass {
        var pass = DeliveryPass(
            store: device.store, dataDirectory: device.directory, policy: policy, retention: RetentionPolicy(keepUploadedDays: nil),
            options: fastOptions(),
            settings: {
                UploadSettings(collectorURL: url, credentials: .tokenFile(path: "/test/token", BearerToken(LiveCollector.token)))
            })
        pass.clock = { Self.clock }
        pass.metering = { .unknown }
        // The in-process collector answers on this process's threads, which a loaded machine
        // can keep from it for seconds: its probe gets 60 s, not a real collector's 5 s. A
        // collector that is down is still said at once (the connection is refused).
        pass.probe = { await Delivery.probe($0, timeout: 60) }
        return pass
    }

    @Test func nothingWaitingAsksForNoCollector() async throws {
        let device = try Device()
        var pass = pass(device)
        struct NoCollector: Error {}
        pass.settings = { throw NoCollector() }
        guard case .nothingWaiting = try await pass.run(force: true) else { Issue.record("not nothingWaiting"); return }
    }

    @Test func fewerThanMinWaitingIsNotYetUnlessForced() async throws {
        let device = try Device()
        _ = try device.ride(fixes: 3)
        var pass = pass(device, policy: DeliveryPolicy(minWaiting: 2))
        // Ten seconds after the ride: younger than max_age (6 h).
        pass.clock = { 1_700_000_013_000 }
        pass.probe = { _ in "refused" }
        guard case .notYet(_, let waiting) = try await pass.run(force: false) else { Issue.record("not notYet"); return }
        #expect(waiting == 1)
        // --now: past the policy, to the (unreachable) collector.
        guard case .unreachable = try await pass.run(force: true) else { Issue.record("not unreachable"); return }
    }

    @Test func anUnreachableCollectorIsRememberedAndBackedOffFrom() async throws {
        let device = try Device()
        _ = try device.ride(fixes: 3)
        var pass = pass(device)
        let notes = Mutex<[DeliveryPass.Note]>([])
        pass.probe = { _ in "connection refused" }
        guard case .unreachable(let state, let waiting, let metering) = try await pass.run(force: false, note: { note in notes.withLock { $0.append(note) } })
        else { Issue.record("not unreachable"); return }
        #expect(waiting == 1 && metering == nil)
        #expect(state.failures == 1 && state.lastError == "the collector did not answer: connection refused")
        #expect(state.lastAttemptAt == Self.clock)
        // One minute ±20 % after the first failure.
        let next = try #require(state.nextAttemptAt)
        #expect((Self.clock + 48_000...Self.clock + 72_000).contains(next))
        #expect(try device.store.deliveryState() == state)
        #expect(notes.withLock { $0 } == [.delivering(reason: "1 waiting, at least 1")])

        guard case .backingOff(let until, let stored, _) = try await pass.run(force: false) else { Issue.record("not backingOff"); return }
        #expect(until == next && stored.failures == 1)
    }

    /// A box without a real-time clock boots with its clock off by hours or days: a backoff set
    /// while the clock was days ahead must not hold the rides back for days once it is right
    /// (the month in the field, docs/faults.md, found rides waiting 44 hours for it).
    @Test func aBackoffSetByAClockThatWasAheadIsNotWaitedFor() {
        var totals = DeliveryTotals()
        totals.waiting = 1
        let now = Self.clock
        let set = { (ahead: Int64) in DeliveryState(failures: 9, nextAttemptAt: now + ahead, lastError: "down") }
        // Within the longest backoff (six hours, +20 %): waited for, to the millisecond.
        #expect(Delivery.decide(totals: totals, state: set(Delivery.longestWait), policy: .standard, now: now, force: false)
            == .backingOff(until: now + Delivery.longestWait))
        #expect(Delivery.decide(totals: totals, state: set(60_000), policy: .standard, now: now, force: false) == .backingOff(until: now + 60_000))
        // Further ahead than any backoff: set by a clock that has since gone back.
        for ahead: Int64 in [Delivery.longestWait + 1, 2 * 86_400_000] {
            guard case .deliver = Delivery.decide(totals: totals, state: set(ahead), policy: .standard, now: now, force: false) else {
                Issue.record("a backoff \(ahead) ms ahead was waited for")
                continue
            }
        }
        // The longest wait nextAttempt sets is within it.
        #expect(Delivery.nextAttempt(afterFailures: 40, now: now, random: 0.999_999) - now <= Delivery.longestWait)
    }

    @Test func aMeteredConnectionHoldsTheRidesBackAndAnUnknownOneIsNoted() async throws {
        let device = try Device()
        _ = try device.ride(fixes: 3)
        var pass = pass(device, policy: DeliveryPolicy(unmeteredOnly: true))
        pass.metering = { .metered }
        pass.probe = { _ in Issue.record("a metered pass must not reach the collector"); return nil }
        guard case .metered(let waiting) = try await pass.run(force: true) else { Issue.record("not metered"); return }
        #expect(waiting == 1)
        #expect(try device.store.deliveryState() == DeliveryState())

        pass.metering = { .unknown }
        pass.probe = { _ in "down" }
        let notes = Mutex<[DeliveryPass.Note]>([])
        guard case .unreachable(_, _, let metering) = try await pass.run(force: true, note: { note in notes.withLock { $0.append(note) } })
        else { Issue.record("not unreachable"); return }
        #expect(metering == .unknown)
        #expect(notes.withLock { $0 } == [.delivering(reason: "--now"), .meteringUnknown])
    }

    @Test func aDeliveryUploadsWhatWaitsAndClearsTheBackoff() async throws {
        let device = try Device()
        let ride = try device.ride(fixes: 5)
        try device.store.recordDeliveryPass(DeliveryState(failures: 3, nextAttemptAt: Self.clock + 1, lastError: "down"))
        let collector = LiveCollector()
        try await collector.serve { url async throws in
            guard case .delivered(let report, let state, let waiting, _) = try await pass(device, url: url).run(force: true)
            else { Issue.record("not delivered"); return }
            #expect(report.results.map(\.measurement) == [ride] && report.results.map(\.outcome) == [.uploaded])
            #expect(state == DeliveryState(failures: 0, lastAttemptAt: Self.clock))
            #expect(waiting == 0)
            try report.check()
            #expect(try collector.stored().count == 1)
        }
        // `capture metrics` and the heartbeat say when the collector last took one (the store's
        // clock: the wall clock).
        let metrics = DeliveryMetricsTests.parse(try DeliveryMetrics.text(of: device.store, now: Self.clock))
        let delivered = try #require(metrics.samples["capture_last_delivery_timestamp_seconds"])
        #expect(abs(delivered - Date().timeIntervalSince1970) < 600, "\(delivered)")
        #expect(try device.store.deliveryState() == DeliveryState(failures: 0, lastAttemptAt: Self.clock))
    }

    @Test func anotherUploaderHoldingTheLockMakesThePassBusy() async throws {
        let device = try Device()
        _ = try device.ride(fixes: 3)
        let pass = pass(device)
        let outcome = try await UploaderLock.whileHeld(directory: device.directory) { try await pass.run(force: true) }
        guard case .busy(let waiting) = outcome else { Issue.record("not busy: \(String(describing: outcome))"); return }
        #expect(waiting == 1)
    }
}

@Suite struct DeliveryMetricsTests {
    /// `name{labels}` → value, from the text format's sample lines; HELP and TYPE by name.
    static func parse(_ text: String) -> (samples: [String: Double], help: [String: String], types: [String: String]) {
        var samples: [String: Double] = [:], help: [String: String] = [:], types: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ", maxSplits: 3).map(String.init)
            if words.first == "#", words.count == 4 {
                if words[1] == "HELP" { help[words[2]] = words[3] } else if words[1] == "TYPE" { types[words[2]] = words[3] }
            } else if words.count == 2 {
                samples[words[0]] = Double(words[1])
            }
        }
        return (samples, help, types)
    }

    @Test func withoutAStoreEveryFigureIsZero() throws {
        let parsed = Self.parse(try DeliveryMetrics.text(of: nil, now: 0))
        #expect(parsed.samples.count == 21 + RideCount.allCases.count)
        #expect(parsed.samples.values.allSatisfy { $0 == 0 })
        #expect(parsed.types["capture_measurements"] == "gauge" && parsed.types["capture_upload_attempts_total"] == "counter")
        #expect(parsed.help["capture_store_bytes"] == "Size of the database file.")
        #expect(parsed.help["capture_measurements"] == "Measurements in the store by delivery state.")
    }

    @Test func theFiguresAreTheStoresInAFixedFamilyOrder() throws {
        let device = try Device()
        _ = try device.ride(fixes: 3)
        _ = try device.ride(fixes: 3, base: 1_700_000_100_000, finished: false)
        try device.store.recordDeliveryPass(DeliveryState(failures: 2, nextAttemptAt: 1_800_000_060_500, lastError: "down"))
        try device.store.countRide(.endedByPower)
        try device.store.countRide(.discardedAsStill)
        try device.store.countRide(.discardedAsStill)
        let text = try DeliveryMetrics.text(of: device.store, now: 1_800_000_000_000)
        let parsed = Self.parse(text)
        #expect(parsed.samples["capture_measurements{state=\"waiting\"}"] == 1)
        #expect(parsed.samples["capture_measurements{state=\"open\"}"] == 1)
        #expect(parsed.samples["capture_measurements{state=\"delivered\"}"] == 0)
        #expect(parsed.samples["capture_sync_consecutive_failures"] == 2)
        #expect(parsed.samples["capture_sync_next_attempt_timestamp_seconds"] == 1_800_000_060.5)
        #expect(parsed.samples["capture_store_bytes"] == Double(try device.store.databaseSize()))
        #expect(parsed.samples["capture_rides_total{event=\"ended\",by=\"power\"}"] == 1)
        #expect(parsed.samples["capture_rides_total{event=\"discarded\",by=\"still\"}"] == 2)
        #expect(parsed.samples["capture_rides_total{event=\"begun\",by=\"motion\"}"] == 0)
        #expect(parsed.samples["capture_rides_total{event=\"ended\",by=\"full_store\"}"] == 0)
        #expect(parsed.samples["capture_recorder_waiting_for_room"] == 0)
        #expect(parsed.samples["capture_under_voltage_rides_total"] == 0)
        #expect(!parsed.samples.keys.contains { $0.contains("under_voltage\"") }, "not a kind of capture_rides_total")
        // The ride stopped at 1_700_000_003_000 has waited since then.
        #expect(parsed.samples["capture_oldest_waiting_age_seconds"] == Double(1_800_000_000_000 - 1_700_000_003_000) / 1000)
        let order = text.split(separator: "\n").filter { $0.hasPrefix("# TYPE") }.map { String($0.split(separator: " ")[2]) }
        #expect(
            order == [
                "capture_measurements", "capture_upload_attempts_total", "capture_upload_retries_total",
                "capture_rides_total", "capture_under_voltage_rides_total", "capture_measurements_cut_total", "capture_measurement_parts_total",
                "capture_sync_consecutive_failures", "capture_sync_next_attempt_timestamp_seconds",
                "capture_oldest_waiting_age_seconds", "capture_last_delivery_timestamp_seconds", "capture_store_bytes",
                "capture_recorder_waiting_for_room",
                "capture_login_expiry_timestamp_seconds",
                "capture_login_gone", "capture_last_ride_distance_meters", "capture_last_ride_duration_seconds",
                "capture_last_ride_moving_seconds",
            ])
        // The finished ride's figures, as `capture show` states them.
        let figures = try device.store.figures(of: 1)
        #expect(figures.durationMs == 3000 && figures.movingMs == 3000, "\(figures)")
        #expect(parsed.samples["capture_last_ride_distance_meters"] == figures.distanceMeters)
        #expect(parsed.samples["capture_last_ride_duration_seconds"] == 3)
        #expect(parsed.samples["capture_last_ride_moving_seconds"] == 3)
    }

    @Test func theLoginsExpiryAndWhetherItIsGoneAreFigures() throws {
        let alive = LoginLifetime(grantedAt: 1_800_000_000_000, refreshExpiresIn: 0, scope: "openid offline_access")
        var parsed = Self.parse(try DeliveryMetrics.text(of: nil, now: 0, login: alive.report(issuer: "https://i", now: 0)))
        #expect(parsed.samples["capture_login_expiry_timestamp_seconds"] == 1_802_592_000, "\(parsed.samples)")
        #expect(parsed.samples["capture_login_gone"] == 0)
        let gone = alive.gone(at: 1_800_000_100_000, reason: "invalid_grant").report(issuer: "https://i", now: 1_800_000_100_000)
        parsed = Self.parse(try DeliveryMetrics.text(of: nil, now: 0, login: gone))
        #expect(parsed.samples["capture_login_gone"] == 1)
        #expect(parsed.samples["capture_login_expiry_timestamp_seconds"] == 1_800_000_100)
    }
}
