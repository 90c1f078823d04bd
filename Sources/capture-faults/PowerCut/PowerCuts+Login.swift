import Foundation
import Glibc

extension PowerCuts {
    /// The session idle of the scenario's issuer, seconds: the login's stated life
    /// (`refresh_expires_in`), so a pass refreshes it once half of it has passed since the login
    /// or the last refresh. A session-bound login, because an offline token states no life and
    /// the device assumes Keycloak's 30 days; the file is written the same way for both.
    private static let sessionIdle = 20

    /// `capture sync` refreshing a device login whose half life has passed, at the test issuer
    /// (`capture-collector --issuer`) with Keycloak's default: a refresh hands out a new refresh
    /// token and the old one stays valid (with "Revoke Refresh Token" on, a cut after the issuer
    /// answered and before the new token is on the medium loses the login whatever the device
    /// does: docs/faults.md). Per cut: `login.json` is the old login or the new one,
    /// byte for byte, never empty, torn or missing, and `capture sync` afterwards works with it
    /// (the login is not taken for gone).
    func runLogin(cuts: Int, tally: Tally, figures: Figures) throws {
        let collector = try CollectorRun(
            context: context,
            arguments: [
                "--issuer", "--device-interval", "1", "--no-offline-access", "--sso-session-idle", String(Self.sessionIdle),
                "--sso-session-max", "36000",
            ],
            withTokenFile: false)
        defer { collector.stop() }
        let data = try context.directory("power-login")
        let config = context.work + "/power-login.yaml"
        try """
            collector:
              url: "\(collector.url)"
              retry_budget: 10s
            auth:
              issuer: "\(collector.url)realms/capture"
              client_id: capture
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let settings = ["CAPTURE_CONFIG=" + config]
        // A store (a pass without one stops before the login) with its ride delivered.
        let ridePath = context.work + "/power-ride.trace"
        let replayed = try context.capture(["replay", ridePath], dataDirectory: data, environment: settings, timeout: 300)
        guard replayed.status == 0 else { throw CampaignError("capture replay: \(replayed.summary)") }
        try logIn(data: data, settings: settings)
        let delivered = try context.capture(["sync", "--now", "--json"], dataDirectory: data, environment: settings)
        guard tally.check(delivered.status == 0, "capture sync after the login: \(delivered.summary)") else { return }
        let loginFile = data + "/login.json"
        let before = FileManager.default.contents(atPath: loginFile)
        // Past half the session idle since the login: the next pass refreshes.
        sleep(UInt32(Self.sessionIdle / 2 + 1))
        let snapshot = try DirectorySnapshot(root: data)
        let journal = context.work + "/power-login.journal"
        let refreshing = try context.capture(
            ["sync", "--json"], dataDirectory: data, environment: settings + environment(root: data, journal: journal))
        guard tally.check(refreshing.status == 0, "capture sync under the shim: \(refreshing.summary)") else { return }
        let after = FileManager.default.contents(atPath: loginFile)
        guard tally.check(before != nil && after != nil && before != after, "the pass under the shim did not refresh the login")
        else { return }
        let states = CrashStates(root: data, snapshot: snapshot, journal: try PowerJournal(path: journal))
        for cut in cutPoints(cuts, states: states) {
            tally.runs += 1
            let label = "login cut \(tally.runs) at step \(cut) of \(states.stepCount)"
            do {
                try onState(states, cut: cut, mode: .powerCut, name: "power-login-cut", tally: tally, figures: figures) { directory in
                    let left = FileManager.default.contents(atPath: directory + "/login.json")
                    if left == before { figures.oldLogin += 1 } else if left == after { figures.newLogin += 1 }
                    tally.check(
                        left == before || left == after,
                        "\(label): login.json is neither the old login nor the new one (\(left?.count ?? -1) bytes)")
                    let next = try context.capture(["sync", "--json"], dataDirectory: directory, environment: settings)
                    tally.check(
                        next.status == 0 && !next.stdout.contains("login-gone"), "\(label): capture sync after the cut: \(next.summary)")
                    checkDoctor(directory, label: label, tally: tally, environment: settings)
                }
            } catch {
                tally.check(false, "\(label): \(error)")
            }
        }
    }

    /// `capture login`, approved as a person would: the verification URL fetched with curl.
    private func logIn(data: String, settings: [String]) throws {
        let login = try context.spawnCapture(["login", "--json"], dataDirectory: data, environment: settings)
        defer { login.stop() }
        var url: String?
        _ = context.waitFor(30) {
            url = login.stdout.split(separator: "\n").first.flatMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["verification_uri_complete"] as? String
            }
            return url != nil || login.poll() != nil
        }
        guard let url else { throw CampaignError("capture login gave no code: \(login.stderr)") }
        let curl = try Child("/usr/bin/curl", ["-sf", url], directory: context.work, name: context.outputName("curl"))
        guard curl.wait(seconds: 30) == 0 else { throw CampaignError("approving the login: \(curl.stderr)") }
        guard login.wait(seconds: 30) == 0 else { throw CampaignError("capture login: \(login.stderr)") }
    }
}
