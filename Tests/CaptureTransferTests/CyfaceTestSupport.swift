import CaptureCore
import CaptureTransfer
import Foundation
import Testing

/// Helpers shared by the Cyface tests.
enum CyfaceTestSupport {
    /// Bytes from a hex string; spaces are ignored.
    static func hex(_ string: String) -> [UInt8] {
        let digits = Array(string.filter { !$0.isWhitespace })
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
    }

    /// Lower-case hex of bytes.
    static func hexString(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// The §1.10a Android test measurement: 3 fixes, 21 acc, 20 gyr, 10 mag samples.
    static var androidMeasurement: CyfaceMeasurement {
        let fix = Fix(timestamp: 1, latitude: 1, longitude: 1, horizontalAccuracy: 1, speed: 1)
        let sample = MotionSample(timestamp: 1, x: 1, y: 1, z: 1)
        return CyfaceMeasurement(
            fixes: Array(repeating: fix, count: 3),
            samples: [
                .accelerometer: Array(repeating: sample, count: 21),
                .gyroscope: Array(repeating: sample, count: 20),
                .magnetometer: Array(repeating: sample, count: 10),
            ])
    }

    /// The 291 bytes of §1.10a, assembled from the spec's layout.
    static var androidVector: [UInt8] {
        func zeros(_ n: Int) -> [UInt8] { Array(repeating: 0, count: n) }
        var bytes = hex("0003 8001 03")
        bytes += hex("8a01 1f 0a03020000 120580897a0000 1a0580897a0000 2a04c8010000 3204c8010000")
        bytes += hex("9201 61 0a5f") + hex("0a15 02") + zeros(20)
        for tag in ["12", "1a", "22"] { bytes += hex("\(tag)16 d00f") + zeros(20) }
        bytes += hex("9a01 5d 0a5b") + hex("0a14 02") + zeros(19)
        for tag in ["12", "1a", "22"] { bytes += hex("\(tag)15 d00f") + zeros(19) }
        bytes += hex("a201 35 0a33") + hex("0a0a 02") + zeros(9)
        for tag in ["12", "1a", "22"] { bytes += hex("\(tag)0b c801") + zeros(9) }
        return bytes
    }
}
