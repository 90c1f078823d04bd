package import CaptureCore

/// A UTC time of day from an NMEA `hhmmss.ss` field, in milliseconds since midnight.
package struct NMEATime: Sendable, Hashable, Comparable {
    /// Milliseconds since 00:00:00 UTC, 0…86 400 999 (a leap second 60 is allowed).
    package var millisecondsOfDay: Int

    /// Wraps milliseconds since midnight.
    package init(millisecondsOfDay: Int) {
        self.millisecondsOfDay = millisecondsOfDay
    }

    /// Parses `hhmmss` with an optional fraction of any length (`191503.01` → 19:15:03.010).
    ///
    /// Fractions finer than a millisecond are rounded to the nearest millisecond.
    package init?(parsing text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count >= 6, bytes[0..<6].allSatisfy(NMEAField.isDigit) else { return nil }
        let hours = NMEAField.twoDigits(bytes, 0)
        let minutes = NMEAField.twoDigits(bytes, 2)
        let seconds = NMEAField.twoDigits(bytes, 4)
        guard hours < 24, minutes < 60, seconds <= 60 else { return nil }
        var millis = 0
        if bytes.count > 6 {
            guard bytes[6] == UInt8(ascii: "."), bytes.count > 7, bytes[7...].allSatisfy(NMEAField.isDigit) else {
                return nil
            }
            // Keep four digits: enough to round to the millisecond.
            var value = 0
            var scale = 1
            for byte in bytes[7...].prefix(4) {
                value = value * 10 + Int(byte - 0x30)
                scale *= 10
            }
            millis = (value * 1000 * 2 + scale) / (scale * 2)
        }
        millisecondsOfDay = ((hours * 60 + minutes) * 60 + seconds) * 1000 + millis
    }

    package static func < (lhs: NMEATime, rhs: NMEATime) -> Bool {
        lhs.millisecondsOfDay < rhs.millisecondsOfDay
    }
}

/// A calendar date (UTC) from an NMEA `ddmmyy` field or a ZDA sentence.
package struct NMEADate: Sendable, Hashable {
    /// Four-digit year.
    package var year: Int
    /// 1…12.
    package var month: Int
    /// 1…31.
    package var day: Int

    /// A date from its parts (validated: year 1…9999, month 1…12, day within the month).
    package init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month), day >= 1, day <= CivilDate.daysInMonth(year: year, month: month) else {
            return nil
        }
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses RMC's `ddmmyy`. Two-digit years 80…99 are 1980…1999, 00…79 are 2000…2079
    /// (GPS time starts in 1980, so no receiver reports earlier dates).
    package init?(parsingDDMMYY text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 6, bytes.allSatisfy(NMEAField.isDigit) else { return nil }
        let yy = NMEAField.twoDigits(bytes, 4)
        self.init(
            year: yy >= 80 ? 1900 + yy : 2000 + yy, month: NMEAField.twoDigits(bytes, 2), day: NMEAField.twoDigits(bytes, 0))
    }

    /// Days since 1970-01-01.
    package var daysSinceUnixEpoch: Int64 {
        CivilDate.daysSinceUnixEpoch(year: year, month: month, day: day)
    }

    /// The following day.
    package var next: NMEADate {
        let (y, m, d) = CivilDate.civil(fromDaysSinceUnixEpoch: daysSinceUnixEpoch + 1)
        return NMEADate(year: y, month: m, day: d) ?? self
    }

    /// Unix milliseconds of `time` on this date.
    package func unixMilliseconds(at time: NMEATime) -> Int64 {
        daysSinceUnixEpoch * 86_400_000 + Int64(time.millisecondsOfDay)
    }
}


/// Field-level parsing helpers. Every function returns `.success(nil)` for an empty field
/// ("no data", per NMEA) and a failure only for text that is present but wrong.
enum NMEAField {
    /// Knots to metres per second: one knot is one nautical mile (1852 m) per hour.
    static let metersPerSecondPerKnot = 1852.0 / 3600.0

    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    static func twoDigits(_ bytes: [UInt8], _ at: Int) -> Int {
        Int(bytes[at] - 0x30) * 10 + Int(bytes[at + 1] - 0x30)
    }

    struct Invalid: Error {
        var field: String
    }

    static func double(_ text: String, _ name: String) throws(Invalid) -> Double? {
        if text.isEmpty { return nil }
        var text = text
        guard let value = text.withUTF8({ DecimalParser.parse($0) }) else { throw Invalid(field: name) }
        return value
    }

    static func int(_ text: String, _ name: String) throws(Invalid) -> Int? {
        if text.isEmpty { return nil }
        guard let value = Int(text) else { throw Invalid(field: name) }
        return value
    }

    static func character(_ text: String, _ name: String, allowed: String) throws(Invalid) -> Character? {
        if text.isEmpty { return nil }
        guard text.count == 1, let char = text.first, allowed.contains(char) else { throw Invalid(field: name) }
        return char
    }

    static func time(_ text: String) throws(Invalid) -> NMEATime? {
        if text.isEmpty { return nil }
        guard let time = NMEATime(parsing: text) else { throw Invalid(field: "time") }
        return time
    }

    /// `ddmm.mmmm` (latitude, 2 degree digits) or `dddmm.mmmm` (longitude, 3) plus a hemisphere
    /// letter → signed degrees. The degree digits are whatever precedes the last two integer digits,
    /// so receivers that drop leading zeros still parse. An empty value is "no position" even if
    /// the hemisphere letter is filled in (some receivers send `,,N,,E,` without a fix).
    static func coordinate(_ text: String, _ hemisphere: String, isLatitude: Bool) throws(Invalid) -> Double? {
        let name = isLatitude ? "latitude" : "longitude"
        if text.isEmpty { return nil }
        let positive: Character = isLatitude ? "N" : "E"
        let negative: Character = isLatitude ? "S" : "W"
        guard hemisphere.count == 1, let sign = hemisphere.first, sign == positive || sign == negative else {
            throw Invalid(field: name)
        }
        let bytes = Array(text.utf8)
        let dot = bytes.firstIndex(of: UInt8(ascii: ".")) ?? bytes.count
        guard dot >= 3, bytes[0..<dot].allSatisfy(isDigit) else { throw Invalid(field: name) }
        let degreesText = String(decoding: bytes[0..<(dot - 2)], as: UTF8.self)
        let minutesText = String(decoding: bytes[(dot - 2)...], as: UTF8.self)
        guard let degrees = Int(degreesText), let minutes = try? double(minutesText, name), minutes < 60 else {
            throw Invalid(field: name)
        }
        let value = Double(degrees) + minutes / 60
        guard value <= (isLatitude ? 90 : 180) else { throw Invalid(field: name) }
        return sign == positive ? value : -value
    }
}
