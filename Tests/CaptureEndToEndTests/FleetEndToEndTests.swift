import CaptureTestSupport
import Foundation
import Glibc
import Testing

/// The heartbeat against the real engine (issue 44, items 1 and 2): Debian's Pushgateway and
/// Prometheus on loopback, Prometheus scraping the gateway with the shipped alerting rules.
@Suite(.serialized) struct FleetEndToEndTests {
    typealias Device = ConfigEndToEndTests.Device

    @Test func theShippedRulesPassPromtoolAndTheirUnitTests() throws {
        guard let promtool = Program.require("promtool", package: "prometheus") else { return }
        let check = try Program.run(promtool, ["check", "rules", Repository.root + "/dist/prometheus/capture-rules.yml"])
        #expect(check.status == 0 && check.stdout.contains("SUCCESS: 6 rules found"), "\(check.stdout)\(check.stderr)")
        let test = try Program.run(promtool, ["test", "rules", Repository.fixture("prometheus/capture-rules.test.yml")])
        #expect(test.status == 0, "\(test.stdout)\(test.stderr)")
    }

    @Test func aBoxsHeartbeatIsFreshInPrometheusOneSeriesSetPerBoxAndItsSilenceFires() throws {
        guard let gatewayTool = Program.require("prometheus-pushgateway", package: "prometheus-pushgateway"),
            let prometheusTool = Program.require("prometheus", package: "prometheus")
        else { return }
        let device = Device()
        let (gatewayPort, prometheusPort) = (try Loopback.freePort(), try Loopback.freePort())
        let gateway = try Subprocess(
            ["--web.listen-address=127.0.0.1:\(gatewayPort)", "--persistence.file=\(device.root)/gateway.data"],
            executable: gatewayTool)
        device.write(
            """
            global: { scrape_interval: 1s, evaluation_interval: 1s }
            rule_files: ["\(Repository.root)/dist/prometheus/capture-rules.yml"]
            scrape_configs:
              - job_name: pushgateway
                honor_labels: true
                static_configs: [{ targets: ["127.0.0.1:\(gatewayPort)"] }]

            """, to: device.root + "/prometheus.yml")
        let prometheus = try Subprocess(
            [
                "--config.file=\(device.root)/prometheus.yml", "--storage.tsdb.path=\(device.root)/tsdb",
                "--web.listen-address=127.0.0.1:\(prometheusPort)",
            ], executable: prometheusTool)
        // Both are stopped by pid (SIGKILL) when their Subprocess goes, at the end of the test.
        defer { withExtendedLifetime((gateway, prometheus)) {} }
        #expect(waitFor(30) { Loopback.canConnect(port: gatewayPort) && Loopback.canConnect(port: prometheusPort) })
        device.write("data_dir: \(device.data)\nfleet: { push_url: \"http://127.0.0.1:\(gatewayPort)\", interval: 2s }\n")
        let environment = ["CAPTURE_CONFIG": device.config]
        for _ in 0..<2 {
            let push = try device.run(["metrics", "--push"], environment)
            #expect(push.status == 0, "\(push.stderr)")
        }
        let status = try JSONSerialization.jsonObject(with: Data(try device.run(["status", "--json"], environment).stdout.utf8))
        let id = try #require((status as? [String: Any])?["device"] as? String)
        // Two pushes, one series set: the grouping key is the device id.
        let exposed = try Program.run("/usr/bin/curl", ["-sf", "http://127.0.0.1:\(gatewayPort)/metrics"]).stdout
        #expect(exposed.split(separator: "\n").filter { $0.hasPrefix("capture_heartbeat_timestamp_seconds{") }.count == 1, "\(exposed)")
        #expect(exposed.contains(#"capture_heartbeat_timestamp_seconds{instance="\#(id)",job="capture"}"#))
        // Prometheus has it, fresh, under the box's id.
        let fresh = waitFor(60) {
            let result = query(prometheusPort, "time() - capture_heartbeat_timestamp_seconds{instance=\"\(id)\"}")
            return result.first.flatMap { Double($0.value) }.map { $0 < 30 } ?? false
        }
        #expect(fresh, "\(query(prometheusPort, "capture_heartbeat_timestamp_seconds"))")
        // The box falls silent: after two intervals the shipped rule fires for it.
        let fired = waitFor(90) {
            !query(prometheusPort, "ALERTS{alertname=\"CaptureBoxSilent\",alertstate=\"firing\",instance=\"\(id)\"}").isEmpty
        }
        #expect(fired, "\(query(prometheusPort, "ALERTS"))")
        // A recorder starts: it has the heartbeat pushed at its start and every interval, from
        // its flushes' wake-ups, with no command typed; the alert ends.
        let start = try device.run(["start", "--source", "trace:" + Repository.fixture("bicycle.trace")], environment)
        #expect(start.status == 0, "\(start.stderr)")
        defer { _ = try? device.run(["stop"], environment) }
        #expect(waitFor(60) { query(prometheusPort, "ALERTS{alertname=\"CaptureBoxSilent\",instance=\"\(id)\"}").isEmpty })
        var beats = Set<String>()
        let beating = waitFor(60) {
            beats.formUnion(query(prometheusPort, "capture_heartbeat_timestamp_seconds{instance=\"\(id)\"}").map(\.value))
            return beats.count >= 3
        }
        #expect(beating, "\(beats)")
        #expect(query(prometheusPort, "capture_info{instance=\"\(id)\"}").first?.labels["state"] == "capturing")
        // The recorder's own flushes, timed, and the kernel's word on the clock came with it.
        let flushes = query(prometheusPort, "capture_flush_max_seconds{instance=\"\(id)\"}").first.flatMap { Double($0.value) }
        #expect(flushes.map { $0 > 0 && $0 < 60 } == true, "\(String(describing: flushes))")
        #expect(!query(prometheusPort, "capture_clock_synchronized{instance=\"\(id)\"}").isEmpty)
    }

    @Test func withoutAPushURLOrWithTheGatewayDownPushSaysSo() throws {
        let device = Device()
        device.write("data_dir: \(device.data)\n")
        let none = try device.run(["metrics", "--push"], ["CAPTURE_CONFIG": device.config])
        #expect(none.status == 78 && none.stderr == "capture: no fleet.push_url is set (docs/fleet.md)\n", "\(none.stderr)")
        let port = try Loopback.freePort()
        device.write("data_dir: \(device.data)\nfleet: { push_url: \"http://127.0.0.1:\(port)\" }\n")
        let down = try device.run(["metrics", "--push"], ["CAPTURE_CONFIG": device.config])
        #expect(down.status == 69 && down.stderr.contains("did not answer"), "\(down.stderr)")
        // A sync pass goes on without it: a warning, its own exit status.
        let sync = try device.run(["sync"], ["CAPTURE_CONFIG": device.config])
        #expect(sync.stderr.contains("capture: warning: heartbeat: the Pushgateway at http://127.0.0.1:\(port)"), "\(sync.stderr)")
    }

    /// A gateway that asks for a login (its `--web.config.file` with a bcrypt-hashed user, as
    /// the Prometheus exporters' web configuration says): the box's `fleet.username` and
    /// `fleet.password_file` get in; a wrong password is refused with exit 77 (EX_NOPERM).
    @Test func aGatewayThatAsksForALoginTakesTheBoxsAndRefusesAWrongPassword() throws {
        guard let gatewayTool = Program.require("prometheus-pushgateway", package: "prometheus-pushgateway") else { return }
        let device = Device()
        let port = try Loopback.freePort()
        // The password `heartbeat-test-password`, hashed with bcrypt at cost 4 (glibc's crypt).
        device.write(
            "basic_auth_users:\n  box: $2b$04$NdQHu7C4hMYTY2dao93exOAxdL7vJ6mb.2B4I0MHA0DCA6kITW8K2\n", to: device.root + "/web.yml")
        let gateway = try Subprocess(
            ["--web.listen-address=127.0.0.1:\(port)", "--web.config.file=\(device.root)/web.yml"], executable: gatewayTool)
        defer { withExtendedLifetime(gateway) {} }
        #expect(waitFor(30) { Loopback.canConnect(port: port) })
        let password = device.root + "/fleet-password"
        let environment = ["CAPTURE_CONFIG": device.config]
        device.write(
            "data_dir: \(device.data)\nfleet: { push_url: \"http://127.0.0.1:\(port)\", username: box, password_file: \(password) }\n")
        for (secret, status) in [("wrong-password\n", 77), ("heartbeat-test-password\n", 0)] {
            device.write(secret, to: password)
            chmod(password, 0o600)
            let push = try device.run(["metrics", "--push"], environment)
            #expect(push.status == Int32(status), "\(push.stderr)")
        }
        let exposed = try Program.run(
            "/usr/bin/curl", ["-sf", "-u", "box:heartbeat-test-password", "http://127.0.0.1:\(port)/metrics"]).stdout
        #expect(exposed.contains("capture_heartbeat_timestamp_seconds{"), "\(exposed.prefix(400))")
        let anonymous = try Program.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(port)/metrics"])
        #expect(anonymous.stdout == "401", "the gateway asks everyone for the login")
    }

    /// The instant vector of `expression` at Prometheus on `port`: each sample's labels and value.
    private func query(_ port: UInt16, _ expression: String) -> [(labels: [String: String], value: String)] {
        let encoded = expression.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        guard let answer = try? Program.run("/usr/bin/curl", ["-sf", "http://127.0.0.1:\(port)/api/v1/query?query=\(encoded)"]),
            let object = try? JSONSerialization.jsonObject(with: Data(answer.stdout.utf8)) as? [String: Any],
            let data = object["data"] as? [String: Any], let result = data["result"] as? [[String: Any]]
        else { return [] }
        return result.map { (($0["metric"] as? [String: String]) ?? [:], (($0["value"] as? [Any])?.last as? String) ?? "") }
    }

    private func waitFor(_ seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(250_000)
        }
        return condition()
    }
}

/// The box as capture-record.service runs it (`ride.detect: auto`, `capture start --foreground`):
/// its recorder pushes the heartbeat while armed, with no command typed, and says it is armed;
/// once motion begins a ride, it says it captures.
@Suite struct ArmedHeartbeatEndToEndTests {
    @Test func anArmedRecorderPushesAndSaysItIsArmedThenCapturing() throws {
        guard let gatewayTool = Program.require("prometheus-pushgateway", package: "prometheus-pushgateway") else { return }
        let port = try Loopback.freePort()
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("capture-gateway-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let gateway = try Subprocess(
            ["--web.listen-address=127.0.0.1:\(port)", "--persistence.file=\(scratch)"], executable: gatewayTool)
        defer { withExtendedLifetime(gateway) {} }
        #expect(MediumEndToEndTests.waitFor(30) { Loopback.canConnect(port: port) })
        let box = try RideEndToEndTests.Box(["CAPTURE_FLEET_PUSH_URL=http://127.0.0.1:\(port)", "CAPTURE_FLEET_INTERVAL=1s"])
        defer { box.end() }
        func pushed() -> (state: String?, beat: String?) {
            let text = (try? Program.run("/usr/bin/curl", ["-sf", "http://127.0.0.1:\(port)/metrics"]).stdout) ?? ""
            let lines = text.split(separator: "\n")
            let info = lines.first { $0.hasPrefix("capture_info{") }
            let state = info?.split(separator: "state=\"").dropFirst().first?.prefix { $0 != "\"" }
            let beat = lines.first { $0.hasPrefix("capture_heartbeat_timestamp_seconds{") }?.split(separator: " ").last
            return (state.map(String.init), beat.map(String.init))
        }
        box.play(4, moving: false)
        let armed = pushed()
        #expect(armed.state == "armed", "\(armed)")
        box.play(3, moving: false)
        #expect(pushed().beat != nil && pushed().beat != armed.beat, "one push a second from its flushes")
        box.play(6, moving: true)
        #expect(box.cli.waitFor(10) { pushed().state == "capturing" }, "\(pushed())")
    }
}
