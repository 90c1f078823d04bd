import CaptureCore
@testable import CaptureRecorder
@testable import capture
import Testing

/// What `capture pause`, `resume`, `modality`, `stop` and `start` print, made from the report.
struct LifecycleReportLinesTests {
    @Test func aLifecycleCommandSaysWhatItDidAndWhereTheMeasurementStands() {
        var report = LifecycleReport(measurement: 3, state: .paused, track: 1, modality: .bicycle, pid: 42)
        #expect(report.line("paused") == "measurement 3 paused (paused, track 1)")
        #expect(report.startLine == "3")
        #expect(report.givenUpWarning == nil)
        report.givenUp = 2
        #expect(report.givenUpWarning?.hasPrefix("2 flush(es) of samples its recorder had staged") == true)
        report.ride = RideStatus(state: .armed, since: 0)
        #expect(report.startLine == "armed: recorder 42 begins a ride when motion does")
    }
}
