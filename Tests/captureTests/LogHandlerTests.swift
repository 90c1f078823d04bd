@testable import capture
import Testing

/// The lines every stage's log messages become: the front end adds `capture:` and the severity.
struct LogHandlerTests {
    @Test func aWarningSaysSoAndInformationDoesNot() {
        #expect(PlainLogHandler.line("cannot push the heartbeat: x", level: .warning) == "capture: warning: cannot push the heartbeat: x")
        #expect(PlainLogHandler.line("broken", level: .error) == "capture: error: broken")
        #expect(PlainLogHandler.line("using trace:a", level: .info) == "capture: using trace:a")
        #expect(
            PlainLogHandler.line("put", level: .debug, metadata: ["to": "9", "from": "0"]) == "capture: put (from=0 to=9)",
            "metadata sorted by key")
    }
}
