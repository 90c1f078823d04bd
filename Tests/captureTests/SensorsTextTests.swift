import CaptureSensors
import CaptureTestSupport
@testable import capture
import Foundation
import Testing

/// What `capture sensors` prints, made from the survey's values.
struct SensorsTextTests {
    @Test func theSurveySaysEachDeviceAndReceiverOnLinesOfTheirOwn() throws {
        let root = FakeSysfs()
        root.write("iio:device0", ["name": "bmp280", "in_pressure_input": "101.3", "sampling_frequency": "-5"])
        #expect(FileManager.default.createFile(atPath: root.path + "/dev/gnss0", contents: Data()))
        let text = SensorSurvey(sysfsRoot: root.path, gpsd: GPSDSource(host: "127.0.0.1", port: 1)).text(listened: 0)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first?.hasPrefix("iio:device0  bmp280  ") == true, "\(text)")
        #expect(lines.contains("  sensors: prs") && lines.contains("  rates: -"), "\(text)")
        #expect(lines.contains("gpsd:127.0.0.1:1  not answering"), "\(text)")
        #expect(lines.contains("nmea:" + root.path + "/dev/gnss0  " + (SensorSurvey(sysfsRoot: root.path).gnss.last?.state.rawValue ?? "?")))
        #expect(text.hasSuffix("\n"))
        let empty = SensorSurvey(sysfsRoot: FakeSysfs().path, gpsd: GPSDSource(host: "127.0.0.1", port: 1)).text(listened: 0)
        #expect(empty.hasPrefix("no IIO devices under "), "\(empty)")
    }
}
