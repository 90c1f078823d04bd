import CaptureTestSupport
import Foundation
import Testing

/// `capture status` says why a recording ended when no command ended it: a source gone (issue 32,
/// item 5; the store's and the machine's ends are in RecordingEndTests).
@Suite struct SourceGoneEndToEndTests {
    /// A recorder whose only device went, then ended (killed here, as by a power cut): status
    /// says the recording ended when its source was gone, not only that the recorder ended.
    @Test func aRecordingWhoseSourceWentSaysSoOnceInterrupted() throws {
        let sysfs = try BadSysfsTests.root([:])
        defer { sysfs.remove() }
        let cli = CLI()
        let started = try cli.run(["start", "--sysfs-root", sysfs.path, "--source", "iio:iio:device0", "--rate", "50", "--flush-interval", "0.1"])
        #expect(started.status == 0, "\(started.stderr)")
        #expect(try cli.waitForCommitted(5))
        try FileManager.default.removeItem(atPath: sysfs.deviceDirectory("iio:device0"))
        #expect(try cli.waitFor(10) { try cli.run(["status"]).stdout.contains("sources failed: 1 of 1") })
        let pid = try #require(cli.recorderPID)
        kill(pid, SIGKILL)
        #expect(try cli.waitFor(10) { kill(pid, 0) != 0 })
        let status = try cli.run(["status"])
        #expect(status.stdout.contains("\n  ended      every source was gone (iio:"), "\(status.stdout)")
        #expect(status.stdout.contains("the device vanished), a device unplugged or failing for good at "), "\(status.stdout)")
        let ended = try cli.json(["status"])["ended"] as? [String: Any] ?? [:]
        #expect(ended["kind"] as? String == "source-gone", "\(ended)")
    }
}
