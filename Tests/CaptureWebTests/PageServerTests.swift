import CaptureCore
import CaptureRecorder
import CaptureStorage
import CaptureSurface
import CaptureTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import CaptureWeb

/// The page's server on loopback, over a data directory with one finished ride and no recorder:
/// who gets in, what the API answers (the values of the command line's --json), the rides drawn.
@Suite struct PageServerTests {
    let scratch: Scratch
    let token = AccessToken(secret: "feedc0de" + String(repeating: "0", count: 56), created: false)
    let ride: Int64

    init() throws {
        scratch = try Scratch.make("page")
        ride = try StoreRides.twoTracks(in: try Store(directory: scratch.path))
    }

    func application(deliver: (@Sendable (String) -> AutomaticDelivery.Outcome)? = nil) -> some ApplicationProtocol {
        var box = Box(directory: scratch.path, budget: ByteSize(bytes: 1 << 30), surface: SurfaceOptions())
        if let deliver { box.deliver = deliver }
        return PageServer(box: box, token: token, logger: .init(label: "test")).application(host: "127.0.0.1", port: 0) { _ in }
    }

    var bearer: HTTPFields { [.authorization: "Bearer " + token.secret] }

    @Test func withoutTheTokenOnlyTheLoginAndHealthAnswer() async throws {
        try await application().test(.live) { client in
            let page = try await client.execute(uri: "/", method: .get)
            #expect(page.status == .unauthorized)
            #expect(String(buffer: page.body).contains("<input name=\"token\""))
            let api = try await client.execute(uri: "/api/status", method: .get)
            #expect(api.status == .unauthorized)
            #expect(api.headers[.wwwAuthenticate] == "Bearer")
            #expect(try await client.execute(uri: "/api/rides", method: .get, headers: [.authorization: "Bearer nope"]).status == .unauthorized)
            #expect(try await client.execute(uri: "/health", method: .get).status == .ok)
            #expect(try await client.execute(uri: "/login", method: .get).status == .ok)
        }
    }

    @Test func theLoginFormSetsACookieThatOpensThePage() async throws {
        try await application().test(.live) { client in
            let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            let wrong = try await client.execute(uri: "/login", method: .post, headers: form, body: ByteBuffer(string: "token=guess"))
            #expect(wrong.status == .unauthorized)
            #expect(String(buffer: wrong.body).contains("wrong token"))
            let right = try await client.execute(
                uri: "/login", method: .post, headers: form, body: ByteBuffer(string: "token=" + token.secret))
            #expect(right.status == .seeOther)
            let cookie = try #require(right.headers[.setCookie])
            #expect(cookie.hasPrefix("capture_token=" + token.secret))
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
            let page = try await client.execute(uri: "/", method: .get, headers: [.cookie: "capture_token=" + token.secret])
            #expect(page.status == .ok)
            let html = String(buffer: page.body)
            for id in ["state", "mark", "end-ride", "begin", "modality", "deliver"] { #expect(html.contains("id=\"\(id)\""), "\(id)") }
        }
    }

    @Test func fiveWrongTokensFromAnAddressAreAnsweredTooManyRequests() async throws {
        try await application().test(.live) { client in
            for _ in 0..<Gate.allowance {
                #expect(try await client.execute(uri: "/api/status", method: .get, headers: [.authorization: "Bearer x"]).status == .unauthorized)
            }
            let limited = try await client.execute(uri: "/api/status", method: .get, headers: bearer)
            #expect(limited.status == .tooManyRequests)
            // One try comes back every 12 s: the wait left is at most that (less as time passes).
            let wait = try #require(limited.headers[.retryAfter].flatMap { Int($0) })
            #expect((1...12).contains(wait), "\(wait)")
        }
    }

    @Test func apiStatusIsWhatCaptureStatusJSONSays() async throws {
        let expected = try RecorderControl(directory: scratch.path).status()
        try await application().test(.live) { client in
            let answer = try await client.execute(uri: "/api/status", method: .get, headers: bearer)
            #expect(answer.status == .ok)
            let report = try JSONDecoder().decode(StatusReport.self, from: Data(buffer: answer.body))
            #expect(report == expected)
            let rides = try await client.execute(uri: "/api/rides", method: .get, headers: bearer)
            #expect(String(buffer: rides.body).contains("\"id\" : \(ride)"))
        }
    }

    @Test func ridesAreListedAndDrawn() async throws {
        try await application().test(.live) { client in
            let list = String(buffer: try await client.execute(uri: "/rides", method: .get, headers: bearer).body)
            #expect(list.contains("href=\"/rides/\(ride)\""))
            let page = String(buffer: try await client.execute(uri: "/rides/\(ride)", method: .get, headers: bearer).body)
            #expect(page.contains("src=\"/rides/\(ride)/map.svg\""))
            let map = try await client.execute(uri: "/rides/\(ride)/map.svg", method: .get, headers: bearer)
            #expect(map.status == .ok)
            #expect(map.headers[.contentType] == "image/svg+xml")
            let svg = String(buffer: map.body)
            #expect(svg.hasPrefix("<?xml") || svg.hasPrefix("<svg"))
            #expect(svg.contains("<polyline"))
            #expect(try await client.execute(uri: "/rides/99/map.svg", method: .get, headers: bearer).status != .ok)
        }
    }

    @Test func actionsWithoutARecorderSayWhyAndDeliverStarts() async throws {
        try await application(deliver: { _ in .started(pid: 4242, log: "/x/sync.log") }).test(.live) { client in
            let mark = try await client.execute(uri: "/api/mark", method: .post, headers: bearer)
            #expect(mark.status == .conflict)
            #expect(String(buffer: mark.body).contains("no measurement is open"))
            let deliver = try await client.execute(uri: "/api/deliver", method: .post, headers: bearer)
            #expect(deliver.status == .ok)
            #expect(String(buffer: deliver.body).contains("\"pid\" : 4242"))
            let modality = try await client.execute(
                uri: "/api/modality", method: .post, headers: bearer, body: ByteBuffer(string: "{\"modality\":\"BOAT\"}"))
            #expect(modality.status == .badRequest)
            let button = try await client.execute(uri: "/action/mark", method: .post, headers: bearer)
            #expect(button.status == .seeOther)
            #expect(button.headers[.location]?.hasPrefix("/?said=no%20measurement") == true, "\(button.headers)")
        }
    }
}
