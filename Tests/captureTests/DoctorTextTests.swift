import CaptureDoctor
@testable import capture
import Testing

/// What `capture doctor` prints, made from the report's checks.
struct DoctorTextTests {
    @Test func oneLineACheckInColumnsThenTheSummary() {
        let report = DoctorReport(checks: [
            .pass("configuration", "/etc/capture/config.yaml read"),
            .warn("runtime dir", "control.sock left by an older capture", "remove it"),
            .fail("token", "refused by the collector (401)", "renew the token in /etc/capture/token"),
            .pass("source trace:/a/very/long/name.trace", "acc 100 Hz"),
        ])
        let lines = report.text.split(separator: "\n").map(String.init)
        // Names padded to the longest, at most 16 letters, and two spaces; a longer one is followed by two spaces.
        #expect(
            lines == [
                "pass  configuration     /etc/capture/config.yaml read",
                "warn  runtime dir       control.sock left by an older capture → remove it",
                "FAIL  token             refused by the collector (401) → renew the token in /etc/capture/token",
                "pass  source trace:/a/very/long/name.trace  acc 100 Hz",
                "doctor: 2 passed, 1 warning(s), 1 failed",
            ])
    }
}
