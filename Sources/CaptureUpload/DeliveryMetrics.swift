public import CaptureStorage
import Prometheus

/// The delivery and store figures of a data directory in the Prometheus text format (version
/// 0.0.4), for node_exporter's textfile collector (`capture metrics`). swift-prometheus checks
/// the names and writes the text; the figures are read from the store once per call, the last
/// finished ride's distance and times as ``CaptureStorage/RideFigures`` has them.
public enum DeliveryMetrics {
    /// The figures of `store` at `now` (Unix ms); without a store every figure is 0. `login`
    /// is the device login's report (``CaptureStorage/LoginLifetime/report(loginFile:now:)``), if any;
    /// `waitingForRoom`, whether the running recorder waits armed for room in a full store.
    ///
    /// The families come in a fixed order (one registry each: a registry writes its families
    /// in no particular order); the samples of `capture_measurements` in any order.
    public static func text(
        of store: Store?, now: Int64, login: LoginLifetime.Report? = nil, waitingForRoom: Bool = false
    ) throws -> String {
        let totals = try store?.deliveryTotals() ?? DeliveryTotals()
        let state = try store?.deliveryState() ?? DeliveryState()
        let open = try store?.measurements().filter(\.isOpen).count ?? 0
        let size = try store?.databaseSize() ?? 0

        var families: [PrometheusCollectorRegistry] = []
        func family(_ build: (PrometheusCollectorRegistry) -> Void) {
            let registry = PrometheusCollectorRegistry()
            build(registry)
            families.append(registry)
        }
        func gauge(_ name: String, _ help: String, _ value: Double) {
            family { $0.makeGauge(name: name, help: help).set(value) }
        }
        family { registry in
            let byState = [
                ("delivered", totals.delivered), ("waiting", totals.waiting), ("failed", totals.failed),
                ("skipped", totals.skipped), ("discarded", totals.discarded), ("open", open),
            ]
            for (name, count) in byState {
                registry.makeGauge(
                    name: "capture_measurements", labels: [("state", name)], help: "Measurements in the store by delivery state."
                ).set(Int64(count))
            }
        }
        family {
            $0.makeCounter(
                name: "capture_upload_attempts_total", help: "Upload runs that tried a measurement, over all measurements."
            ).increment(by: Int64(totals.attempts))
        }
        family {
            $0.makeCounter(name: "capture_upload_retries_total", help: "Requests retried within uploads, over all measurements.")
                .increment(by: Int64(totals.retries))
        }
        let rides = try store?.rideCounts() ?? [:]
        family { registry in
            // How rides began and ended: by motion (ride.detect: auto), by power (an interrupted
            // ride finished at the next start), by size (continued as a new measurement).
            for kind in RideCount.allCases where kind != .sawUnderVoltage {
                let (event, by) = kind.labels
                registry.makeCounter(
                    name: "capture_rides_total", labels: [("event", event), ("by", by)],
                    help: "Rides begun, ended and discarded, by what decided it."
                ).increment(by: Int64(rides[kind] ?? 0))
            }
        }
        family {
            $0.makeCounter(
                name: "capture_under_voltage_rides_total",
                help: "Measurements during which the board reported under-voltage (a Raspberry Pi's power browning out)."
            ).increment(by: Int64(rides[.sawUnderVoltage] ?? 0))
        }
        let parts = try store?.partTotals() ?? PartTotals()
        family {
            $0.makeCounter(
                name: "capture_measurements_cut_total",
                help: "Finished measurements over collector.payload_limit cut into parts for delivery."
            ).increment(by: Int64(parts.measurementsCut))
        }
        family {
            $0.makeCounter(name: "capture_measurement_parts_total", help: "Parts made of them, each delivered as a measurement.")
                .increment(by: Int64(parts.parts))
        }
        gauge("capture_sync_consecutive_failures", "Sync passes in a row that could not deliver.", Double(state.failures))
        gauge(
            "capture_sync_next_attempt_timestamp_seconds", "When the next sync pass may try (Unix seconds; 0: any time).",
            Double(state.nextAttemptAt ?? 0) / 1000)
        gauge(
            "capture_oldest_waiting_age_seconds", "How long the oldest waiting measurement has waited (0: none).",
            Double(totals.oldestWaitingSince.map { max(0, now - $0) } ?? 0) / 1000)
        gauge(
            "capture_last_delivery_timestamp_seconds", "When the collector last took a measurement still in the store (Unix seconds; 0: none).",
            Double(try store?.lastDeliveryTime() ?? 0) / 1000)
        gauge("capture_store_bytes", "Size of the database file.", Double(size))
        gauge(
            "capture_recorder_waiting_for_room",
            "1 while the recorder waits armed for room: the store is full of rides not delivered; nothing is recorded.",
            waitingForRoom ? 1 : 0)
        gauge(
            "capture_login_expiry_timestamp_seconds",
            "When the device login ends if nothing refreshes it (Unix seconds; 0: no login).",
            Double(login?.expiresAt ?? 0) / 1000)
        gauge(
            "capture_login_gone", "1 when the device login is gone (refused by the issuer, or expired): log in again.",
            login?.health == .gone ? 1 : 0)
        // The last finished ride's figures, as `capture show` states them (RideFigures).
        let lastRide = try store?.measurements().last { $0.status == .finished }
        let figures = try lastRide.flatMap { try store?.figures(of: $0.id) } ?? RideFigures()
        gauge("capture_last_ride_distance_meters", "The last finished ride's distance over clean fixes (0: none).", figures.distanceMeters)
        gauge(
            "capture_last_ride_duration_seconds", "The last finished ride's duration, start to stop (0: none).",
            Double(figures.durationMs ?? 0) / 1000)
        gauge(
            "capture_last_ride_moving_seconds", "The last finished ride's time in its tracks, pauses left out (0: none).",
            Double(figures.movingMs) / 1000)
        return families.map { $0.emitToString() }.joined()
    }
}

extension RideCount {
    /// `event` and `by` of `capture_rides_total`: `begun`/`motion`, `ended`/`full_store`,
    /// `discarded`/`still`.
    var labels: (String, String) {
        if let by = rawValue.range(of: "_by_") {
            return (String(rawValue[..<by.lowerBound]), String(rawValue[by.upperBound...]))
        }
        let parts = rawValue.split(separator: "_").map(String.init)
        return (parts[0], parts[parts.count - 1])
    }
}
