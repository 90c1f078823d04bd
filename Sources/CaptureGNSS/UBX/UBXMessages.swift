public import CaptureCore

/// The UBX messages decoded here, from their payloads.
///
/// Offsets, types and scalings follow the u-blox 8 / M8 receiver description and protocol
/// specification (UBX-13003221), section "UBX Messages Overview" and the per-message sections
/// "UBX-NAV-PVT", "UBX-NAV-POSLLH", "UBX-NAV-SOL", "UBX-NAV-VELNED", "UBX-NAV-DOP",
/// "UBX-NAV-STATUS", "UBX-NAV-TIMEGPS", "UBX-NAV-POSECEF", "UBX-NAV-VELECEF", "UBX-NAV-EOE",
/// "UBX-ESF-RAW", "UBX-ESF-MEAS", "UBX-ESF-INS" and "UBX-HNR-PVT". All multi-byte fields are little-endian. Payloads may be
/// longer than described (later protocol versions append fields); shorter ones are rejected.
public enum UBXMessage: Sendable, Equatable {
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
    public enum Failure: Error, Sendable, Equatable {
        /// A class/id not decoded here.
        case unsupported(UInt16)
        /// Payload shorter than the message needs (kind, length).
        case tooShort(UInt16, Int)
        /// Payload length inconsistent with its own counts (kind, length).
        case badLength(UInt16, Int)
    }

    /// The message kinds (`class << 8 | id`).
    public enum Kind {
        /// NAV-POSECEF and the others below: `class << 8 | id`.
        public static let navPosECEF: UInt16 = 0x0101
        public static let navPosLLH: UInt16 = 0x0102
        public static let navStatus: UInt16 = 0x0103
        public static let navDOP: UInt16 = 0x0104
        public static let navSol: UInt16 = 0x0106
        public static let navPVT: UInt16 = 0x0107
        public static let navVelECEF: UInt16 = 0x0111
        public static let navVelNED: UInt16 = 0x0112
        public static let navTimeGPS: UInt16 = 0x0120
        public static let navEOE: UInt16 = 0x0161
        public static let esfMeas: UInt16 = 0x1002
        public static let esfRaw: UInt16 = 0x1003
        public static let esfINS: UInt16 = 0x1015
        public static let hnrPVT: UInt16 = 0x2800
    }

    /// Decodes `frame`'s payload.
    public init(_ frame: UBXFrame) throws(Failure) {
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

/// NAV-PVT: navigation position, velocity and time solution.
public struct UBXNavPVT: Sendable, Equatable {
    /// GPS time of week of the navigation epoch, ms.
    /// GPS time of week of the navigation epoch, ms.
    public var iTOW: UInt32
    /// UTC date and time (valid per ``valid``).
    public var year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int
    /// Validity flags: bit 0 validDate, bit 1 validTime, bit 2 fullyResolved.
    public var valid: UInt8
    /// Fraction of the second, ns (may be negative).
    public var nano: Int32
    /// 0 no fix, 1 dead reckoning only, 2 2D, 3 3D, 4 GNSS + dead reckoning, 5 time only.
    public var fixType: UInt8
    /// Bit 0 gnssFixOK (within the DOP and accuracy masks), bit 1 diffSoln, …
    public var flags: UInt8
    /// Satellites used in the solution.
    public var numSV: Int
    /// Degrees.
    public var longitude: Double, latitude: Double
    /// Height above the ellipsoid and above mean sea level, m.
    public var height: Double, heightMSL: Double
    /// Horizontal and vertical accuracy estimates, m.
    public var horizontalAccuracy: Double, verticalAccuracy: Double
    /// Ground speed (2D), m/s.
    public var groundSpeed: Double
    /// Heading of motion (2D), degrees.
    public var headingOfMotion: Double
    /// Position DOP.
    public var pDOP: Double

    /// Unix milliseconds from the UTC fields, when date and time are marked valid.
    public var unixMilliseconds: Int64? {
        Self.unixMilliseconds(year: year, month: month, day: day, hour: hour, minute: minute, second: second, valid: valid, nano: nano)
    }

    /// Unix milliseconds of a UBX UTC date and time (NAV-PVT, HNR-PVT), when `valid` marks date
    /// and time valid (bits 0 and 1).
    static func unixMilliseconds(
        year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, valid: UInt8, nano: Int32
    ) -> Int64? {
        guard valid & 0x03 == 0x03, (1...12).contains(month), (1...31).contains(day) else { return nil }
        let days = CivilDate.daysSinceUnixEpoch(year: year, month: month, day: day)
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        // nano is in −1e9…1e9: round it to the nearest ms.
        let nanos = Int64(nano)
        let millis = nanos >= 0 ? (nanos + 500_000) / 1_000_000 : -((-nanos + 499_999) / 1_000_000)
        return seconds * 1000 + millis
    }
}

/// HNR-PVT: the high-rate (up to 30 Hz) position, velocity and time solution of a u-blox
/// dead-reckoning module (NEO-M8U/M8L, ZED-F9R, NEO-F9V), GNSS and IMU fused, sent beside the
/// navigation-rate NAV-PVT.
///
/// Layout (72 bytes) per the u-blox 8 / M8 protocol specification, "UBX-HNR-PVT": iTOW, UTC
/// date and time with validity flags and nano as in NAV-PVT; gpsFix (offset 16) and flags (17,
/// bit 0 GPSfixOK) as in NAV-SOL; lon, lat (1e-7 deg), height, hMSL (mm), gSpeed, speed (mm/s),
/// headMot, headVeh (1e-5 deg), hAcc, vAcc (mm), sAcc, headAcc.
public struct UBXHNRPVT: Sendable, Equatable {
    /// GPS time of week of the solution, ms.
    public var iTOW: UInt32
    /// The UTC date and time as Unix ms, when the module marks both valid (as for NAV-PVT).
    public var unixMilliseconds: Int64?
    /// Fix type (0 none, 1 DR only, 2 2D, 3 3D, 4 GNSS + DR, 5 time only) and flags (bit 0
    /// GPSfixOK, 1 DiffSoln, 2 WKNSET, 3 TOWSET, 4 headVehValid).
    public var gpsFix: UInt8, flags: UInt8
    /// Position: degrees, and height above the ellipsoid and above mean sea level, m.
    public var longitude: Double, latitude: Double, height: Double, heightMSL: Double
    /// Ground speed (2D), m/s, and heading of motion (2D), degrees.
    public var groundSpeed: Double, headingOfMotion: Double
    /// Horizontal and vertical accuracy estimates, m.
    public var horizontalAccuracy: Double, verticalAccuracy: Double
}

/// NAV-POSLLH: geodetic position.
public struct UBXNavPosLLH: Sendable, Equatable {
    /// GPS time of week of the navigation epoch, ms.
    public var iTOW: UInt32
    /// Degrees.
    public var longitude: Double, latitude: Double
    /// Height above the ellipsoid and above mean sea level, m.
    public var height: Double, heightMSL: Double
    /// Accuracy estimates, m.
    public var horizontalAccuracy: Double, verticalAccuracy: Double
}

/// NAV-SOL: navigation solution in ECEF, with fix type and week.
public struct UBXNavSol: Sendable, Equatable {
    /// GPS time of week of the navigation epoch, ms.
    public var iTOW: UInt32
    /// GPS week number.
    public var week: Int
    /// 0 no fix, 1 DR only, 2 2D, 3 3D, 4 GNSS + DR, 5 time only.
    public var gpsFix: UInt8
    /// Bit 0 GPSfixOK, bit 1 DiffSoln, bit 2 WKNSET (week valid), bit 3 TOWSET.
    public var flags: UInt8
    /// ECEF position, m.
    public var ecef: (x: Double, y: Double, z: Double)
    /// 3D position accuracy estimate, m.
    public var positionAccuracy: Double
    /// ECEF velocity, m/s.
    public var ecefVelocity: (x: Double, y: Double, z: Double)
    /// Position DOP.
    public var pDOP: Double
    /// Satellites used.
    public var numSV: Int

    /// Field-wise equality (tuples are not `Equatable`).
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.iTOW == rhs.iTOW && lhs.week == rhs.week && lhs.gpsFix == rhs.gpsFix && lhs.flags == rhs.flags
            && lhs.ecef == rhs.ecef && lhs.positionAccuracy == rhs.positionAccuracy
            && lhs.ecefVelocity == rhs.ecefVelocity && lhs.pDOP == rhs.pDOP && lhs.numSV == rhs.numSV
    }
}

/// NAV-VELNED: velocity in the local north-east-down frame.
public struct UBXNavVelNED: Sendable, Equatable {
    /// GPS time of week of the navigation epoch, ms.
    public var iTOW: UInt32
    /// Down velocity, m/s.
    public var down: Double
    /// Ground speed (2D), m/s.
    public var groundSpeed: Double
    /// Heading of motion (2D), degrees.
    public var heading: Double
    /// Speed accuracy estimate, m/s.
    public var speedAccuracy: Double
}

/// NAV-DOP: dilutions of precision.
public struct UBXNavDOP: Sendable, Equatable {
    /// GPS time of week of the navigation epoch, ms.
    public var iTOW: UInt32
    /// Geometric, position, time, vertical and horizontal DOP.
    public var gDOP: Double, pDOP: Double, tDOP: Double, vDOP: Double, hDOP: Double
}

/// NAV-STATUS: receiver navigation status.
public struct UBXNavStatus: Sendable, Equatable {
    /// GPS time of week of the navigation epoch, ms.
    public var iTOW: UInt32
    /// Fix type, as in ``UBXNavSol/gpsFix``.
    public var gpsFix: UInt8
    /// Bit 0 gpsFixOk, bit 2 wknSet, bit 3 towSet.
    public var flags: UInt8
}

/// NAV-TIMEGPS: GPS time, with the GPS−UTC leap seconds.
public struct UBXNavTimeGPS: Sendable, Equatable {
    /// GPS time of week of the navigation epoch, ms.
    public var iTOW: UInt32
    /// GPS week number.
    public var week: Int
    /// GPS − UTC, s.
    public var leapSeconds: Int
    /// Bit 0 towValid, bit 1 weekValid, bit 2 leapSValid.
    public var valid: UInt8
}

/// NAV-POSECEF: position in ECEF.
public struct UBXNavPosECEF: Sendable, Equatable {
    /// GPS time of week of the navigation epoch, ms.
    public var iTOW: UInt32
    /// m.
    public var ecef: (x: Double, y: Double, z: Double)
    /// 3D position accuracy estimate, m.
    public var positionAccuracy: Double

    /// Field-wise equality.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.iTOW == rhs.iTOW && lhs.ecef == rhs.ecef && lhs.positionAccuracy == rhs.positionAccuracy
    }
}

/// NAV-VELECEF: velocity in ECEF.
public struct UBXNavVelECEF: Sendable, Equatable {
    /// GPS time of week of the navigation epoch, ms.
    public var iTOW: UInt32
    /// m/s.
    public var ecefVelocity: (x: Double, y: Double, z: Double)

    /// Field-wise equality.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.iTOW == rhs.iTOW && lhs.ecefVelocity == rhs.ecefVelocity
    }
}

/// One 32-bit ESF data word: a 24-bit field (bits 0…23) and a 6-bit data type (bits 24…29).
///
/// Data types and scaling: u-blox 8 / M8 protocol specification (UBX-13003221), section
/// "ESF Measurement Data" (sensor data types table); the same table is in the ZED-F9R/F9K
/// integration manuals ("Definition of data types"). The IMU types are:
/// 5 z-gyro, 13 y-gyro, 14 x-gyro (deg/s · 2⁻¹², signed); 16 x-, 17 y-, 18 z-accelerometer
/// (m/s² · 2⁻¹⁰, signed); 12 gyroscope temperature (°C · 10⁻², signed). Wheel ticks (6…10) and
/// speed (11) are not motion samples and are left alone.
public struct UBXSensorDatum: Sendable, Equatable {
    /// The raw word.
    public var word: UInt32

    /// Wraps a raw data word.
    public init(_ word: UInt32) {
        self.word = word
    }

    /// The data type (0…63).
    public var type: UInt8 { UInt8(word >> 24 & 0x3F) }

    /// The 24-bit field as a two's-complement signed value.
    public var signedField: Int32 { Int32(bitPattern: word << 8) >> 8 }

    /// The axis and value in capture's units, for accelerometer and gyroscope types: m/s², and
    /// rad/s (the specification's deg/s converted); `nil` for other types.
    public var motion: (sensor: MotionSensor, axis: Int, value: Double)? {
        let raw = Double(signedField)
        let gyro = raw / 4096 * .pi / 180
        let accel = raw / 1024
        switch type {
        case 14: return (.gyroscope, 0, gyro)
        case 13: return (.gyroscope, 1, gyro)
        case 5: return (.gyroscope, 2, gyro)
        case 16: return (.accelerometer, 0, accel)
        case 17: return (.accelerometer, 1, accel)
        case 18: return (.accelerometer, 2, accel)
        default: return nil
        }
    }
}

/// ESF-RAW: raw inertial sensor samples, each with its sensor time tag.
public struct UBXESFRaw: Sendable, Equatable {
    /// One sample of one axis.
    public struct Block: Sendable, Equatable {
        /// The sample.
        public var data: UBXSensorDatum
        /// Sensor time tag (ticks of the sensor clock).
        public var sensorTimeTag: UInt32
    }

    /// The samples, in the message's order.
    public var blocks: [Block]
}

/// ESF-MEAS: sensor measurements sharing one time tag.
public struct UBXESFMeas: Sendable, Equatable {
    /// Time tag of the measurements (ms for a module's own IMU).
    public var timeTag: UInt32
    /// Identification number of the data provider.
    public var providerID: UInt16
    /// The measurements.
    public var data: [UBXSensorDatum]
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
