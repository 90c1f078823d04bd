import CaptureCore
import CaptureGNSS
import CaptureTestSupport
import Foundation
import Testing

@Suite("UBX-ESF-INS: a dead-reckoning module's vehicle dynamics, read and counted")
struct UBXESFINSTests {
    /// An ESF-INS payload: bitfield0, 4 reserved bytes, iTOW, three angular rates, three accelerations.
    static func payload(valid: UInt32, iTOW: UInt32, values: [Int32]) -> [UInt8] {
        func le(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        return le(1 | valid << 8) + [0, 0, 0, 0] + le(iTOW) + values.flatMap { le(UInt32(bitPattern: $0)) }
    }

    @Test("angular rates 1e-3 deg/s to rad/s, accelerations 1e-2 m/s², an axis marked not valid is nil; short payloads rejected")
    func decode() throws {
        let payload = Self.payload(valid: 0b110_111, iTOW: 319_982_000, values: [1_000, -2_000, 500, 981, -15, 7])
        let message = try UBXMessage(UBXFrame(messageClass: 0x10, messageID: 0x15, payload: payload))
        guard case .esfINS(let ins) = message else {
            Issue.record("not ESF-INS: \(message)")
            return
        }
        #expect(ins.iTOW == 319_982_000)
        #expect(ins.angularRate.map { $0.map { ($0 * 180 / .pi * 1000).rounded() } } == [1_000, -2_000, 500])
        #expect(ins.acceleration == [nil, -0.15, 0.07])
        #expect(throws: UBXMessage.Failure.tooShort(0x1015, 35)) {
            try UBXMessage(UBXFrame(messageClass: 0x10, messageID: 0x15, payload: Array(payload.prefix(35))))
        }
    }

    @Test(
        "the NEO-M8U logs: each ESF-INS read (at its NAV epoch's iTOW) and counted as unused, no fix or sample from it",
        .enabled(if: SharedData.isAvailable, SharedData.absentReason), arguments: [("ublox-neo-m8u.log", 2), ("ublox-neo-m8u-hnr.log", 1)])
    func sharedLogs(log: String, count: Int) throws {
        var stream = GNSSReceiverStream()
        let events = stream.push(try SharedData.bytes(log)) + stream.finish()
        #expect(stream.stats.vehicleDynamics == count)
        #expect(stream.stats.decoded[UBXMessage.Kind.esfINS] == count)
        #expect(stream.stats.unsupported[UBXMessage.Kind.esfINS] == nil)
        #expect(stream.stats.malformed == 0)
        #expect(!events.isEmpty)
        // The modules had not calibrated their sensors: every axis is marked not valid.
        var splitter = UBXFrameSplitter()
        let frames = splitter.push(try SharedData.bytes(log)).compactMap { if case .frame(let f) = $0 { f } else { nil } }
        let navTimes = Set(frames.compactMap { if case .navPVT(let m)? = try? UBXMessage($0) { m.iTOW } else { nil } })
        let ins = frames.compactMap { if case .esfINS(let m)? = try? UBXMessage($0) { m } else { nil } }
        #expect(ins.count == count)
        for m in ins {
            #expect(navTimes.contains(m.iTOW))
            #expect(m.angularRate == [nil, nil, nil] && m.acceleration == [nil, nil, nil])
        }
    }
}
