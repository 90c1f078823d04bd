package import CaptureCore

/// The UBX messages decoded here, from their payloads.
///
/// Offsets, types and scalings follow the u-blox 8 / M8 receiver description and protocol
/// specification (UBX-13003221), section "UBX Messages Overview" and the per-message sections
/// "UBX-NAV-PVT", "UBX-NAV-POSLLH", "UBX-NAV-SOL", "UBX-NAV-VELNED", "UBX-NAV-DOP",
/// "UBX-NAV-STATUS", "UBX-NAV-TIMEGPS", "UBX-NAV-POSECEF", "UBX-NAV-VELECEF", "UBX-NAV-EOE",
/// "UBX-ESF-RAW", "UBX-ESF-MEAS", "UBX-ESF-INS" and "UBX-HNR-PVT". All multi-byte fields are little-endian. Payloads may be
/// longer than described (later protocol versions append fields); shorter ones are rejected.
package enum UBXMessage: Sendable, Equatable {
    /// UBX-NAV-PVT (0x01 0x07).
    case navPVT(UBXNavPVT)
    /// UBX-NAV-POSLLH (0x01 0x02).
    case navPosLLH(UBXNavPosLLH)
    /// UBX-NAV-SOL (0x01 0x06).
    case navSol(UBXNavSol)
    /// UBX-NAV-VELNED (0x01 0x12).
    case navVelNED(UBXNavVelNED)
    /// UBX-NAV-DOP (0x01 0x04).
    case navDOP(UBXNavDOP)
    /// UBX-NAV-STATUS (0x01 0x03).
    case navStatus(UBXNavStatus)
    /// UBX-NAV-TIMEGPS (0x01 0x20).
    case navTimeGPS(UBXNavTimeGPS)
    /// UBX-NAV-POSECEF (0x01 0x01).
    case navPosECEF(UBXNavPosECEF)
    /// UBX-NAV-VELECEF (0x01 0x11).
    case navVelECEF(UBXNavVelECEF)
    /// End of a navigation epoch (protocol 18+): the epoch with this iTOW is complete.
    case navEOE(iTOW: UInt32)
    /// UBX-ESF-RAW (0x10 0x03).
    case esfRaw(UBXESFRaw)
    /// UBX-ESF-MEAS (0x10 0x02).
    case esfMeas(UBXESFMeas)
    /// UBX-ESF-INS (0x10 0x15): a dead-reckoning module's compensated vehicle dynamics.
    case esfINS(UBXESFINS)
    /// UBX-HNR-PVT (0x28 0x00): a dead-reckoning module's high-rate navigation solution.
    case hnrPVT(UBXHNRPVT)

    /// Why a frame did not decode.
    package enum Failure: Error, Sendable, Equatable {
        /// A class/id not decoded here.
        case unsupported(UInt16)
        /// Payload shorter than the message needs (kind, length).
        case tooShort(UInt16, Int)
        /// Payload length inconsistent with its own counts (kind, length).
        case badLength(UInt16, Int)
    }

    /// The message kinds (`class << 8 | id`).
    package enum Kind {
        /// NAV-POSECEF and the others below: `class << 8 | id`.
        package static let navPosECEF: UInt16 = 0x0101
        package static let navPosLLH: UInt16 = 0x0102
        package static let navStatus: UInt16 = 0x0103
        package static let navDOP: UInt16 = 0x0104
        package static let navSol: UInt16 = 0x0106
        package static let navPVT: UInt16 = 0x0107
        package static let navVelECEF: UInt16 = 0x0111
        package static let navVelNED: UInt16 = 0x0112
        package static let navTimeGPS: UInt16 = 0x0120
        package static let navEOE: UInt16 = 0x0161
        package static let esfMeas: UInt16 = 0x1002
        package static let esfRaw: UInt16 = 0x1003
        package static let esfINS: UInt16 = 0x1015
        package static let hnrPVT: UInt16 = 0x2800
    }

    /// Decodes `frame`'s payload.
    package init(_ frame: UBXFrame) throws(Failure) {
        let p = UBXPayload(frame.payload)
        let kind = frame.kind
        func need(_ count: Int) throws(Failure) {
            if p.count < count { throw .tooShort(kind, p.count) }
        }
        switch kind {
        case Kind.navPVT:
            // 84 bytes up to protocol 14 (u-blox 7), 92 from protocol 15.
            try need(84)
            self = .navPVT(
                UBXNavPVT(
                    iTOW: p.u32(0), year: Int(p.u16(4)), month: Int(p.u8(6)), day: Int(p.u8(7)), hour: Int(p.u8(8)),
                    minute: Int(p.u8(9)), second: Int(p.u8(10)), valid: p.u8(11), nano: p.i32(16),
                    fixType: p.u8(20), flags: p.u8(21), numSV: Int(p.u8(23)),
                    longitude: Double(p.i32(24)) * 1e-7, latitude: Double(p.i32(28)) * 1e-7,
                    height: Double(p.i32(32)) * 1e-3, heightMSL: Double(p.i32(36)) * 1e-3,
                    horizontalAccuracy: Double(p.u32(40)) * 1e-3, verticalAccuracy: Double(p.u32(44)) * 1e-3,
                    groundSpeed: Double(p.i32(60)) * 1e-3, headingOfMotion: Double(p.i32(64)) * 1e-5,
                    pDOP: Double(p.u16(76)) * 0.01))
        case Kind.navPosLLH:
            try need(28)
            self = .navPosLLH(
                UBXNavPosLLH(
                    iTOW: p.u32(0), longitude: Double(p.i32(4)) * 1e-7, latitude: Double(p.i32(8)) * 1e-7,
                    height: Double(p.i32(12)) * 1e-3, heightMSL: Double(p.i32(16)) * 1e-3,
                    horizontalAccuracy: Double(p.u32(20)) * 1e-3, verticalAccuracy: Double(p.u32(24)) * 1e-3))
        case Kind.navSol:
            try need(52)
            self = .navSol(
                UBXNavSol(
                    iTOW: p.u32(0), week: Int(p.i16(8)), gpsFix: p.u8(10), flags: p.u8(11),
                    ecef: (Double(p.i32(12)) * 0.01, Double(p.i32(16)) * 0.01, Double(p.i32(20)) * 0.01),
                    positionAccuracy: Double(p.u32(24)) * 0.01,
                    ecefVelocity: (Double(p.i32(28)) * 0.01, Double(p.i32(32)) * 0.01, Double(p.i32(36)) * 0.01),
                    pDOP: Double(p.u16(44)) * 0.01, numSV: Int(p.u8(47))))
        case Kind.navVelNED:
            try need(36)
            self = .navVelNED(
                UBXNavVelNED(
                    iTOW: p.u32(0), down: Double(p.i32(12)) * 0.01, groundSpeed: Double(p.u32(20)) * 0.01,
                    heading: Double(p.i32(24)) * 1e-5, speedAccuracy: Double(p.u32(28)) * 0.01))
        case Kind.navDOP:
            try need(18)
            self = .navDOP(
                UBXNavDOP(
                    iTOW: p.u32(0), gDOP: Double(p.u16(4)) * 0.01, pDOP: Double(p.u16(6)) * 0.01,
                    tDOP: Double(p.u16(8)) * 0.01, vDOP: Double(p.u16(10)) * 0.01, hDOP: Double(p.u16(12)) * 0.01))
        case Kind.navStatus:
            try need(16)
            self = .navStatus(UBXNavStatus(iTOW: p.u32(0), gpsFix: p.u8(4), flags: p.u8(5)))
        case Kind.navTimeGPS:
            try need(16)
            self = .navTimeGPS(
                UBXNavTimeGPS(iTOW: p.u32(0), week: Int(p.i16(8)), leapSeconds: Int(p.i8(10)), valid: p.u8(11)))
        case Kind.navPosECEF:
            try need(20)
            self = .navPosECEF(
                UBXNavPosECEF(
                    iTOW: p.u32(0), ecef: (Double(p.i32(4)) * 0.01, Double(p.i32(8)) * 0.01, Double(p.i32(12)) * 0.01),
                    positionAccuracy: Double(p.u32(16)) * 0.01))
        case Kind.navVelECEF:
            try need(20)
            self = .navVelECEF(
                UBXNavVelECEF(
                    iTOW: p.u32(0),
                    ecefVelocity: (Double(p.i32(4)) * 0.01, Double(p.i32(8)) * 0.01, Double(p.i32(12)) * 0.01)))
        case Kind.navEOE:
            try need(4)
            self = .navEOE(iTOW: p.u32(0))
        case Kind.esfRaw:
            // 4 reserved bytes, then blocks of (data, sTtag).
            try need(4)
            guard (p.count - 4) % 8 == 0 else { throw .badLength(kind, p.count) }
            let blocks = (0..<(p.count - 4) / 8).map { index in
                UBXESFRaw.Block(data: UBXSensorDatum(p.u32(4 + 8 * index)), sensorTimeTag: p.u32(8 + 8 * index))
            }
            self = .esfRaw(UBXESFRaw(blocks: blocks))
        case Kind.esfMeas:
            // timeTag, flags (numMeas in bits 11…15, calibTtagValid bit 3), id, data…, [calibTtag].
            try need(8)
            let flags = p.u16(4)
            let count = Int(flags >> 11 & 0x1F)
            let expected = 8 + 4 * count + (flags & 0x08 != 0 ? 4 : 0)
            guard p.count == expected else { throw .badLength(kind, p.count) }
            self = .esfMeas(
                UBXESFMeas(
                    timeTag: p.u32(0), providerID: p.u16(6),
                    data: (0..<count).map { UBXSensorDatum(p.u32(8 + 4 * $0)) }))
        case Kind.esfINS:
            try need(36)
            self = .esfINS(UBXESFINS(p))
        case Kind.hnrPVT:
            try need(72)
            self = .hnrPVT(
                UBXHNRPVT(
                    iTOW: p.u32(0),
                    unixMilliseconds: UBXNavPVT.unixMilliseconds(
                        year: Int(p.u16(4)), month: Int(p.u8(6)), day: Int(p.u8(7)), hour: Int(p.u8(8)),
                        minute: Int(p.u8(9)), second: Int(p.u8(10)), valid: p.u8(11), nano: p.i32(12)),
                    gpsFix: p.u8(16), flags: p.u8(17),
                    longitude: Double(p.i32(20)) * 1e-7, latitude: Double(p.i32(24)) * 1e-7,
                    height: Double(p.i32(28)) * 1e-3, heightMSL: Double(p.i32(32)) * 1e-3,
                    groundSpeed: Double(p.i32(36)) * 1e-3, headingOfMotion: Double(p.i32(44)) * 1e-5,
                    horizontalAccuracy: Double(p.u32(52)) * 1e-3, verticalAccuracy: Double(p.u32(56)) * 1e-3))
        default:
            throw .unsupported(kind)
        }
    }
}

/// Little-endian field access on a payload; reads past the end give 0 (callers check lengths).
struct UBXPayload {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    var count: Int { bytes.count }
    func u8(_ at: Int) -> UInt8 { at < bytes.count ? bytes[at] : 0 }
    func i8(_ at: Int) -> Int8 { Int8(bitPattern: u8(at)) }
    func u16(_ at: Int) -> UInt16 { UInt16(u8(at)) | UInt16(u8(at + 1)) << 8 }
    func i16(_ at: Int) -> Int16 { Int16(bitPattern: u16(at)) }
    func u32(_ at: Int) -> UInt32 { UInt32(u16(at)) | UInt32(u16(at + 2)) << 16 }
    func i32(_ at: Int) -> Int32 { Int32(bitPattern: u32(at)) }
}
