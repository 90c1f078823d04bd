import CaptureCore
@testable import CaptureRecorder
import CaptureStorage
import Foundation
import Testing

@testable import CaptureWeb

/// The page's words, made from the status value: the state, the ride, delivery, the store
/// against its budget, the problems a person must fix; and nothing of a value reaches the HTML
/// unescaped.
@Suite struct PageTests {
    static let t0: Int64 = 1_700_000_000_000

    @Test func armedItSaysSoAndSinceWhen() {
        var report = StatusReport(dataDirectory: "/d", state: .idle)
        report.ride = RideStatus(state: .armed, since: Self.t0)
        let html = Page.live(report, storeSize: 1 << 20, budget: ByteSize(bytes: 100 << 20), now: Self.t0 + 65_000)
        #expect(html.contains("<p class=\"big\" id=\"state\">armed</p>"), "\(html)")
        #expect(html.contains("(0:01:05 ago)"), "\(html)")
        #expect(html.contains("<th>store</th><td>1.0 MiB of 100.0 MiB</td>"), "\(html)")
        #expect(!html.contains("id=\"problems\""))
    }

    @Test func deliveryAndTheProblemsAPersonMustFixAreSaid() throws {
        var report = StatusReport(dataDirectory: "/d", state: .idle)
        var delivery = DeliveryTotals()
        (delivery.waiting, delivery.delivered, delivery.failed) = (3, 12, 1)
        report.delivery = delivery
        report.sync = DeliveryState(failures: 2, lastError: "the collector did not answer")
        report.login = try JSONDecoder().decode(
            LoginLifetime.Report.self,
            from: Data("""
                {"issuer":"https://id.example/realms/capture","health":"gone","expiresAt":\(Self.t0),"grantedAt":0,
                 "offline":true,"goneReason":"refused by the issuer"}
                """.utf8))
        report.ride = RideStatus(state: .waitingForRoom, since: Self.t0)
        let html = Page.live(report, storeSize: 95 << 20, budget: ByteSize(bytes: 100 << 20), now: Self.t0)
        #expect(html.contains("3 waiting, 12 delivered, 1 of those waiting failed last time"), "\(html)")
        #expect(html.contains("id=\"state\">waiting for room<"))
        #expect(html.contains("the login to https://id.example/realms/capture is gone (refused by the issuer): run capture login"))
        #expect(html.contains("the store is full of rides not delivered"))
        #expect(html.contains("delivery failed 2 times: the collector did not answer"))
        // Near its budget, without waiting for room: said as such.
        report.ride = nil
        let near = Page.live(report, storeSize: 95 << 20, budget: ByteSize(bytes: 100 << 20), now: Self.t0)
        #expect(near.contains("the store holds 95.0 MiB of its 100.0 MiB: deliver rides"), "\(near)")
    }

    @Test func valuesAreEscaped() {
        #expect(Page.escape("<script>alert('x') & \"y\"</script>") == "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;")
        let html = Page.status(
            StatusReport(dataDirectory: "/d", state: .idle), storeSize: 0, budget: nil, said: "<b>hi</b>", now: Self.t0)
        #expect(html.contains("<p id=\"said\">&lt;b&gt;hi&lt;/b&gt;</p>"))
        #expect(html.contains("<option value=\"BICYCLE\">BICYCLE</option>"), "the modalities are plain options")
    }
}
