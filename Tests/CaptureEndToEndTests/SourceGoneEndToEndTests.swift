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

    /// Issue 42: a source that records nothing fails loudly. A recorder whose only device fails
    /// before its first sample (its node cannot be opened) exits 69 saying so, and leaves no
    /// empty measurement to be finished and delivered.
    @Test func aRecordingWhoseOnlySourceFailsBeforeItsFirstSampleExits69AndLeavesNothing() throws {
        let sysfs = try BadSysfsTests.root([:])
        defer { sysfs.remove() }
        sysfs.write("iio:device0", FakeSysfs.axes("accel", type: "le:s16/16>>0"), ["buffer0/enable": "0", "buffer0/length": "0"])
        try sysfs.makeUnopenableNode("iio:device0")
        let cli = CLI()
        let recorder = try Subprocess(
            ["start", "--foreground", "--sysfs-root", sysfs.path, "--source", "iio:iio:device0", "--flush-interval", "0.1",
                "--data-dir", cli.dataDirectory])
        let ended = cli.waitFor(20) { !Subprocess.isAlive(recorder.pid) }
        if !ended { recorder.stop() }
        #expect(ended, "the recorder went on recording nothing")
        #expect(recorder.wait() == 69, "\(recorder.stderr)")
        #expect(recorder.stderr.contains("nothing was recorded: every source failed before its first sample (iio:"), "\(recorder.stderr)")
        #expect(recorder.stderr.contains("the measurement was discarded, not delivered"))
        #expect(try cli.run(["list"]).stdout.contains("no measurements yet"))
    }
}
