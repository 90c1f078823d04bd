package import CaptureCore

/// GPS time (weeks and ms since 1980-01-06 00:00:00 UTC, no leap seconds) to Unix time.
package enum GPSTime {
    /// Unix seconds of the GPS epoch, 1980-01-06 00:00:00 UTC.
    package static let epochUnixSeconds: Int64 = 315_964_800

    /// GPS − UTC in seconds from the given GPS time on (the leap seconds since 1999; older times
    /// get 13). A receiver's own value (NAV-TIMEGPS) is preferred where known.
    static let leapSecondTable: [(fromGPSSeconds: Int64, leap: Int)] = [
        (gpsSeconds(2017, 1, 1, leap: 18), 18),
        (gpsSeconds(2015, 7, 1, leap: 17), 17),
        (gpsSeconds(2012, 7, 1, leap: 16), 16),
        (gpsSeconds(2009, 1, 1, leap: 15), 15),
        (gpsSeconds(2006, 1, 1, leap: 14), 14),
    ]

    private static func gpsSeconds(_ year: Int, _ month: Int, _ day: Int, leap: Int64) -> Int64 {
        CivilDate.daysSinceUnixEpoch(year: year, month: month, day: day) * 86_400 - epochUnixSeconds + leap
    }

    /// The GPS − UTC offset in force at `gpsSeconds` (seconds since the GPS epoch).
    package static func leapSeconds(atGPSSeconds gpsSeconds: Int64) -> Int {
        leapSecondTable.first { gpsSeconds >= $0.fromGPSSeconds }?.leap ?? 13
    }

    /// Unix ms of GPS `week` and `timeOfWeek` (ms); `leapSeconds` from the receiver, or from
    /// the table when `nil`.
    package static func unixMilliseconds(week: Int, timeOfWeek: UInt32, leapSeconds: Int?) -> Int64 {
        let gpsMilliseconds = Int64(week) * 604_800_000 + Int64(timeOfWeek)
        let leap = leapSeconds ?? Self.leapSeconds(atGPSSeconds: gpsMilliseconds / 1000)
        return gpsMilliseconds + (epochUnixSeconds - Int64(leap)) * 1000
    }
}
