import CaptureCore
import CaptureGNSS
import Testing

@Suite("UBX-ESF sensor data: scaling and time")
struct UBXSensorTests {
    @Test("24-bit signed fields; accelerometer m/s² · 2⁻¹⁰; gyroscope deg/s · 2⁻¹² → rad/s")
    func scaling() throws {
        let accel = UBXSensorDatum(UInt32(16) << 24 | 0xFF_FC00)  // −1024
        #expect(accel.signedField == -1024)
        let a = try #require(accel.motion)
        #expect(a.sensor == .accelerometer && a.axis == 0 && a.value == -1)
        let gyro = UBXSensorDatum(UInt32(5) << 24 | 4096)  // z, 1 deg/s
        let g = try #require(gyro.motion)
        #expect(g.sensor == .gyroscope && g.axis == 2 && abs(g.value - Double.pi / 180) < 1e-15)
        #expect(UBXSensorDatum(UInt32(12) << 24 | 2479).motion == nil)  // temperature
        #expect(UBXSensorDatum(0x7F_FFFF).signedField == 8_388_607)
        #expect(UBXSensorDatum(0x80_0000).signedField == -8_388_608)
    }

    /// ESF-RAW with `count` sample sets (accel x y z, gyro x y z, temperature) 256 ticks apart.
    private func esfRaw(firstTag: UInt32, count: Int) -> [UInt8] {
        var payload = [UInt8](repeating: 0, count: 4)
        for set in 0..<count {
            let tag = firstTag + UInt32(set * 256)
            for (type, value) in [(16, 26), (17, 232), (18, 10274), (14, -656), (13, -2717), (5, 249), (12, 2479)] {
                let word = UInt32(type) << 24 | UInt32(bitPattern: Int32(value)) & 0xFF_FFFF
                var p = Payload(count: 8)
                p.u32(0, word)
                p.u32(4, tag)
                payload += p.bytes
            }
        }
        return frame(0x10, 0x03, payload)
    }

    @Test("ESF-RAW before the first epoch is held, then placed before it on GNSS time; MEAS skipped when RAW is sent")
    func rawSamplesOnGNSSTime() throws {
        var meas = Payload(count: 8 + 12)
        meas.u32(0, 1000)
        meas.u16(4, 3 << 11)
        for (index, type) in [16, 17, 18].enumerated() { meas.u32(8 + 4 * index, UInt32(type) << 24 | 1024) }
        var stream = GNSSReceiverStream()
        var events = stream.push(esfRaw(firstTag: 10_000, count: 10) + frame(0x10, 0x02, meas.bytes))
        #expect(events.isEmpty)
        events += stream.push(navPVT() + frame(0x01, 0x61, [0x98, 0x8D, 0x12, 0x13]))
        events += stream.push(esfRaw(firstTag: 12_560, count: 10)) + stream.finish()
        let accel = events.compactMap { if case .motion(.accelerometer, let s) = $0 { s } else { nil } }
        let gyro = events.compactMap { if case .motion(.gyroscope, let s) = $0 { s } else { nil } }
        #expect(accel.count == 20 && gyro.count == 20)
        #expect(stream.stats.sensors.measSkippedForRaw == 1)
        let fixTime: Int64 = 1_622_047_965_000
        // The held message's last set is at the epoch; sets are 10 ms apart (256 ticks).
        #expect(accel[9].timestamp == fixTime)
        #expect(accel[0].timestamp == fixTime - 90)
        #expect(accel[10].timestamp == fixTime + 10)
        #expect(accel[0].x == 26.0 / 1024 && accel[0].z == 10274.0 / 1024)
        #expect(abs(gyro[0].x - -656.0 / 4096 * .pi / 180) < 1e-15)
        // Held samples come out before the fix.
        let firstFix = try #require(events.firstIndex { if case .gnss(.fix) = $0 { true } else { false } })
        #expect(firstFix == 20 + 1)  // 10 accel + 10 gyro, the acquired transition, then the fix
    }

    @Test("ESF-MEAS alone gives samples, ms time tags")
    func measSamples() {
        func meas(_ tag: UInt32) -> [UInt8] {
            var p = Payload(count: 8 + 16)
            p.u32(0, tag)
            p.u16(4, 4 << 11)
            for (index, type) in [14, 13, 5, 12].enumerated() { p.u32(8 + 4 * index, UInt32(type) << 24 | 4096) }
            return frame(0x10, 0x02, p.bytes)
        }
        var stream = GNSSReceiverStream()
        let events = stream.push(navPVT() + frame(0x01, 0x61, [0x98, 0x8D, 0x12, 0x13]) + meas(5000) + meas(5100)) + stream.finish()
        let gyro = events.compactMap { if case .motion(.gyroscope, let s) = $0 { s } else { nil } }
        #expect(gyro.map(\.timestamp) == [1_622_047_965_000, 1_622_047_965_100])
        #expect(stream.stats.sensors.accelerometer == 0)
    }
}
