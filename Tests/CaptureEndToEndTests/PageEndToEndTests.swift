import CaptureTestSupport
import Foundation
import Glibc
import Testing

/// The page as a rider uses it (issue 43, item 4): Debian's headless Chromium at a phone's size
/// (Tests/tools/page-drive) logs in with the box's token, marks the moment, changes the
/// modality and ends the ride with the page's buttons; the store then holds what was pressed.
/// Screenshots are kept in .build/artefacts/page/.
@Suite struct PageEndToEndTests {
    static let artefacts = Repository.root + "/.build/artefacts/page"

    /// `capture serve` on a free loopback port; the process and its base URL.
    static func serve(_ cli: CLI) throws -> (Subprocess, String) {
        let server = try Subprocess(["serve", "--listen", "127.0.0.1:0", "--data-dir", cli.dataDirectory], executable: CLI.executable)
        var url: String?
        _ = cli.waitFor(15) {
            let line = server.stdout
            guard let range = line.range(of: "http://127.0.0.1:[0-9]+/", options: .regularExpression) else { return false }
            url = String(line[range].dropLast())
            return true
        }
        return (server, try #require(url, "capture serve printed no address: \(server.output)"))
    }

    /// Runs page-drive's `steps`; its lines, decoded.
    static func drive(_ url: String, _ steps: [String]) throws -> (status: Int32, lines: [[String: Any]], output: String) {
        let python = try #require(Program.require("python3", package: "python3"))
        _ = try #require(Program.require("chromium", package: "chromium"))
        try FileManager.default.createDirectory(atPath: artefacts, withIntermediateDirectories: true)
        let run = try Program.run(python, [Repository.root + "/Tests/tools/page-drive", "--url", url, "--shots", artefacts] + steps)
        let lines = run.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        return (run.status, lines, run.stdout + run.stderr)
    }

    @Test func aRiderMarksChangesTheModalityAndEndsTheRideFromThePhone() throws {
        let cli = CLI()
        let started = try cli.run(["start", "--source", "trace:" + cli.fixture("bicycle.trace")])
        #expect(started.status == 0, "\(started.stderr)")
        #expect(try cli.waitFor {
            ((try cli.json(["status"])["committed"] as? [String: Any])?["locations"] as? Int ?? 0) >= 2
        })
        let token = try cli.run(["serve", "--show-token"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.count == 64)
        let (server, url) = try Self.serve(cli)
        defer { server.stop() }
        let run = try Self.drive(url, [
            "open:/", "login:not-the-token", "login:" + token, "shot:status", "click:mark", "wait-text:said=marked",
            "select:modality=WALKING", "click:set-modality", "wait-text:said=modality WALKING", "shot:marked",
            "click:end-ride", "wait-text:said=ride ended", "wait-text:state=idle", "open:/rides", "shot:rides",
            "open:/rides/1", "shot:ride",
        ])
        #expect(run.status == 0, "\(run.output)")
        let lines = run.lines
        try #require(lines.count == 17, "\(run.output)")
        #expect(lines[0]["status"] as? Int == 401, "without the token: the login form")
        #expect(lines[1]["status"] as? Int == 401 && lines[1]["said"] as? String == "wrong token")
        #expect(lines[2]["status"] as? Int == 200)
        #expect(lines[5]["said"] as? String == "marked in measurement 1", "\(lines[5])")
        #expect(lines[11]["said"] as? String == "ride ended: measurement 1", "\(lines[11])")
        for line in lines { #expect(line["fits"] as? Bool == true, "no sideways scrolling on a phone: \(line)") }
        for shot in ["status", "marked", "rides", "ride"] {
            let png = try #require(FileManager.default.contents(atPath: Self.artefacts + "/\(shot).png"))
            #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), "\(shot).png is a PNG")
        }
        // What was pressed is in the store.
        let show = try cli.json(["show", "1"])
        #expect(show["status"] as? String == "finished")
        let markers = try #require(show["markers"] as? [[String: Any]])
        #expect(markers.count == 1 && markers[0]["source"] as? String == "page", "\(markers)")
        #expect(markers[0]["latitude"] != nil, "placed at the last fix")
        let events = show["events"] as? [[String: Any]] ?? []
        #expect(events.contains { $0["type"] as? String == "MODALITY_TYPE_CHANGE" && $0["value"] as? String == "WALKING" }, "\(events)")
        server.stop()
        #expect(server.wait() == 0, "SIGTERM ends capture serve cleanly: \(server.output)")
    }

    @Test func theAPIAnswersWhatCaptureStatusSaysToHoldersOfTheTokenOnly() throws {
        let cli = CLI()
        #expect(try cli.run(["replay", cli.fixture("car.trace")]).status == 0)
        let token = try cli.run(["serve", "--show-token"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let (server, url) = try Self.serve(cli)
        defer { server.stop() }
        let curl = try #require(Program.require("curl", package: "curl"))
        func get(_ headers: [String]) throws -> (code: String, body: String) {
            let run = try Program.run(curl, ["-s", "--noproxy", "*", "-w", "\n%{http_code}"] + headers + [url + "/api/status"])
            let parts = run.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            return (String(parts.last ?? ""), parts.dropLast().joined(separator: "\n"))
        }
        let answer = try get(["-H", "Authorization: Bearer " + token])
        #expect(answer.code == "200")
        let served = try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? NSDictionary
        let printed = try JSONSerialization.jsonObject(with: Data(try cli.run(["status", "--json"]).stdout.utf8)) as? NSDictionary
        #expect(served != nil && served == printed, "\(answer.body)")
        #expect(try get([]).code == "401")
        for _ in 0..<5 { #expect(try get(["-H", "Authorization: Bearer guess"]).code == "401") }
        #expect(try get(["-H", "Authorization: Bearer " + token]).code == "429", "this address waits, right token or not")
    }

    @Test func aBadAddressIsAUsageErrorAndATakenPortUnavailable() throws {
        let cli = CLI()
        let bad = try cli.run(["serve", "--listen", "nowhere"])
        #expect(bad.status == 64, "\(bad.stderr)")
        #expect(bad.stderr.hasPrefix("capture: ") && bad.stderr.contains("web.listen") && bad.stderr.split(separator: "\n").count == 1, "\(bad.stderr)")
        let (first, url) = try Self.serve(cli)
        defer { first.stop() }
        let port = try #require(url.split(separator: ":").last)
        let second = try cli.run(["serve", "--listen", "127.0.0.1:" + port])
        #expect(second.status == 69, "\(second.stderr)")
        #expect(second.stderr.contains("cannot serve the page on 127.0.0.1:\(port)"), "\(second.stderr)")
    }
}
