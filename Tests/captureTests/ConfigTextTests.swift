import CaptureConfig
@testable import capture
import Testing

/// What `capture config` prints, made from the report's values (the whole table is
/// ConfigEndToEndTests' golden).
struct ConfigTextTests {
    @Test func withoutAFileItSaysWhereItLookedThenOneAlignedLineASetting() throws {
        let device = try DeviceConfiguration.load(
            environment: ["HOME": "/nonexistent-home", "CAPTURE_HOME": "/nonexistent-home/data"], systemPath: "/nonexistent")
        let report = ConfigReport(device)
        let lines = report.text.split(separator: "\n").map(String.init)
        #expect(
            lines.first
                == "configuration file: none ($CAPTURE_CONFIG is unset; neither /nonexistent-home/.config/capture/config.yaml "
                + "nor \(ConfigFile.systemPath) exists)")
        #expect(lines.count == report.settings.count + 1)
        let home = try #require(lines.first { $0.hasPrefix("data_dir ") })
        #expect(home.contains(" /nonexistent-home/data ") && home.hasSuffix("$CAPTURE_HOME"), "\(home)")
        // The values start in one column.
        let column = try #require(home.range(of: "/nonexistent-home/data")).lowerBound.utf16Offset(in: home)
        for line in lines.dropFirst() { #expect(line.dropFirst(column - 2).hasPrefix("  "), "\(line)") }
    }
}
