import CaptureTestSupport
import Foundation
import Glibc
import Testing

/// Issue 32: `capture upload` to a collector that is down said nothing for 15 minutes per
/// measurement. Now the first failure is a line naming the URL, every retry a line with its
/// wait (no terminal here), and a collector never reached is given up within the short budget.
@Suite struct UnreachableCollectorTests {
    @Test func aCollectorThatIsDownIsReportedAtOnceAndEveryRetrySaysItsWait() throws {
        let cli = CLI()
        #expect(try cli.run(["replay", Repository.root + "/fixtures/car.trace"]).status == 0)
        let token = scratch("token")
        defer { unlink(token) }
        #expect(FileManager.default.createFile(atPath: token, contents: Data("t\n".utf8), attributes: [.posixPermissions: 0o600]))
        let result = try cli.run(["upload", "--url", "http://127.0.0.1:1/", "--token-file", token, "--retry-budget", "5"])
        #expect(result.status == 75, "\(result.stderr)")
        // Each retry line names its measurement (issue 46).
        let retries = result.stderr.split(separator: "\n").filter { $0.hasPrefix("upload: measurement 1: retrying in ") }
        #expect(!retries.isEmpty, "\(result.stderr)")
        #expect(
            retries.first?.hasSuffix(" s: the collector at http://127.0.0.1:1/ does not answer: pre-request: connection refused (127.0.0.1:1)")
                == true, "\(result.stderr)")
        #expect(retries.dropFirst().allSatisfy { $0.hasSuffix(" s: pre-request: connection refused (127.0.0.1:1)") }, "\(retries)")
        #expect(result.stdout.hasPrefix("measurement 1: failed (gave up after "), "\(result.stdout)")
        #expect(result.stdout.contains("the collector never answered: pre-request: connection refused (127.0.0.1:1))"), "\(result.stdout)")
        // Issue 46: --resume continues interrupted sessions only; it says what waits instead.
        let resumed = try cli.run(["upload", "--resume", "--url", "http://127.0.0.1:1/", "--token-file", token])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(
            resumed.stdout == "nothing to resume: no upload was interrupted; 1 measurement(s) wait (1 failed): run `capture upload` to send them\n",
            "\(resumed.stdout)")
    }
}
