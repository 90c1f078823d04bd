public import CaptureCore

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
