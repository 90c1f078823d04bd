package import CaptureCore

/// NAV-PVT: navigation position, velocity and time solution.
package struct UBXNavPVT: Sendable, Equatable {
    /// GPS time of week of the navigation epoch, ms.
    /// GPS time of week of the navigation epoch, ms.
    package var iTOW: UInt32
    /// UTC date and time (valid per ``valid``).
    package var year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int
    /// Validity flags: bit 0 validDate, bit 1 validTime, bit 2 fullyResolved.
    package var valid: UInt8
    /// Fraction of the second, ns (may be negative).
    package var nano: Int32
    /// 0 no fix, 1 dead reckoning only, 2 2D, 3 3D, 4 GNSS + dead reckoning, 5 time only.
    package var fixType: UInt8
    /// Bit 0 gnssFixOK (within the DOP and accuracy masks), bit 1 diffSoln, …
    package var flags: UInt8
    /// Satellites used in the solution.
    package var numSV: Int
    /// Degrees.
    package var longitude: Double, latitude: Double
    /// Height above the ellipsoid and above mean sea level, m.
    package var height: Double, heightMSL: Double
    /// Horizontal and vertical accuracy estimates, m.
    package var horizontalAccuracy: Double, verticalAccuracy: Double
    /// Ground speed (2D), m/s.
    package var groundSpeed: Double
    /// Heading of motion (2D), degrees.
    package var headingOfMotion: Double
    /// Position DOP.
    package var pDOP: Double

    /// Unix milliseconds from the UTC fields, when date and time are marked valid.
    package var unixMilliseconds: Int64? {
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
package struct UBXHNRPVT: Sendable, Equatable {
    /// GPS time of week of the solution, ms.
    package var iTOW: UInt32
    /// The UTC date and time as Unix ms, when the module marks both valid (as for NAV-PVT).
    package var unixMilliseconds: Int64?
    /// Fix type (0 none, 1 DR only, 2 2D, 3 3D, 4 GNSS + DR, 5 time only) and flags (bit 0
    /// GPSfixOK, 1 DiffSoln, 2 WKNSET, 3 TOWSET, 4 headVehValid).
    package var gpsFix: UInt8, flags: UInt8
    /// Position: degrees, and height above the ellipsoid and above mean sea level, m.
    package var longitude: Double, latitude: Double, height: Double, heightMSL: Double
    /// Ground speed (2D), m/s, and heading of motion (2D), degrees.
    package var groundSpeed: Double, headingOfMotion: Double
    /// Horizontal and vertical accuracy estimates, m.
    package var horizontalAccuracy: Double, verticalAccuracy: Double
}

/// NAV-POSLLH: geodetic position.
package struct UBXNavPosLLH: Sendable, Equatable {
    /// GPS time of week of the navigation epoch, ms.
    package var iTOW: UInt32
    /// Degrees.
    package var longitude: Double, latitude: Double
    /// Height above the ellipsoid and above mean sea level, m.
    package var height: Double, heightMSL: Double
    /// Accuracy estimates, m.
    package var horizontalAccuracy: Double, verticalAccuracy: Double
}

/// NAV-SOL: navigation solution in ECEF, with fix type and week.
package struct UBXNavSol: Sendable, Equatable {
    /// GPS time of week of the navigation epoch, ms.
    package var iTOW: UInt32
    /// GPS week number.
    package var week: Int
    /// 0 no fix, 1 DR only, 2 2D, 3 3D, 4 GNSS + DR, 5 time only.
    package var gpsFix: UInt8
    /// Bit 0 GPSfixOK, bit 1 DiffSoln, bit 2 WKNSET (week valid), bit 3 TOWSET.
    package var flags: UInt8
    /// ECEF position, m.
    package var ecef: (x: Double, y: Double, z: Double)
    /// 3D position accuracy estimate, m.
    package var positionAccuracy: Double
    /// ECEF velocity, m/s.
    package var ecefVelocity: (x: Double, y: Double, z: Double)
    /// Position DOP.
    package var pDOP: Double
    /// Satellites used.
    package var numSV: Int

    /// Field-wise equality (tuples are not `Equatable`).
    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.iTOW == rhs.iTOW && lhs.week == rhs.week && lhs.gpsFix == rhs.gpsFix && lhs.flags == rhs.flags
            && lhs.ecef == rhs.ecef && lhs.positionAccuracy == rhs.positionAccuracy
            && lhs.ecefVelocity == rhs.ecefVelocity && lhs.pDOP == rhs.pDOP && lhs.numSV == rhs.numSV
    }
}

/// NAV-VELNED: velocity in the local north-east-down frame.
package struct UBXNavVelNED: Sendable, Equatable {
    /// GPS time of week of the navigation epoch, ms.
    package var iTOW: UInt32
    /// Down velocity, m/s.
    package var down: Double
    /// Ground speed (2D), m/s.
    package var groundSpeed: Double
    /// Heading of motion (2D), degrees.
    package var heading: Double
    /// Speed accuracy estimate, m/s.
    package var speedAccuracy: Double
}

/// NAV-DOP: dilutions of precision.
package struct UBXNavDOP: Sendable, Equatable {
    /// GPS time of week of the navigation epoch, ms.
    package var iTOW: UInt32
    /// Geometric, position, time, vertical and horizontal DOP.
    package var gDOP: Double, pDOP: Double, tDOP: Double, vDOP: Double, hDOP: Double
}

/// NAV-STATUS: receiver navigation status.
package struct UBXNavStatus: Sendable, Equatable {
    /// GPS time of week of the navigation epoch, ms.
    package var iTOW: UInt32
    /// Fix type, as in ``UBXNavSol/gpsFix``.
    package var gpsFix: UInt8
    /// Bit 0 gpsFixOk, bit 2 wknSet, bit 3 towSet.
    package var flags: UInt8
}

/// NAV-TIMEGPS: GPS time, with the GPS−UTC leap seconds.
package struct UBXNavTimeGPS: Sendable, Equatable {
    /// GPS time of week of the navigation epoch, ms.
    package var iTOW: UInt32
    /// GPS week number.
    package var week: Int
    /// GPS − UTC, s.
    package var leapSeconds: Int
    /// Bit 0 towValid, bit 1 weekValid, bit 2 leapSValid.
    package var valid: UInt8
}

/// NAV-POSECEF: position in ECEF.
package struct UBXNavPosECEF: Sendable, Equatable {
    /// GPS time of week of the navigation epoch, ms.
    package var iTOW: UInt32
    /// m.
    package var ecef: (x: Double, y: Double, z: Double)
    /// 3D position accuracy estimate, m.
    package var positionAccuracy: Double

    /// Field-wise equality.
    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.iTOW == rhs.iTOW && lhs.ecef == rhs.ecef && lhs.positionAccuracy == rhs.positionAccuracy
    }
}

/// NAV-VELECEF: velocity in ECEF.
package struct UBXNavVelECEF: Sendable, Equatable {
    /// GPS time of week of the navigation epoch, ms.
    package var iTOW: UInt32
    /// m/s.
    package var ecefVelocity: (x: Double, y: Double, z: Double)

    /// Field-wise equality.
    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.iTOW == rhs.iTOW && lhs.ecefVelocity == rhs.ecefVelocity
    }
}
