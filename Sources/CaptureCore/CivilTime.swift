/// ISO 8601 UTC times such as `2022-10-18T11:32:58.000Z`, as gpsd, GPX and GeoJSON write them.
public enum ISO8601Time {
    /// Unix milliseconds for `yyyy-mm-ddThh:mm:ss[.fff…]Z`; `nil` for anything else. Fractions
    /// finer than a millisecond are rounded to the nearest one.
    public static func unixMilliseconds(iso8601 text: String) -> Int64? {
        let b = Array(text.utf8)
        func digits(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= b.count else { return nil }
            var value = 0
            for index in range {
                guard b[index] >= 0x30, b[index] <= 0x39 else { return nil }
                value = value * 10 + Int(b[index] - 0x30)
            }
            return value
        }
        guard b.count >= 20, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"), b[10] == UInt8(ascii: "T"),
            b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"), b.last == UInt8(ascii: "Z"),
            let year = digits(0..<4), let month = digits(5..<7), let day = digits(8..<10),
            let hour = digits(11..<13), let minute = digits(14..<16), let second = digits(17..<19),
            (1...12).contains(month), day >= 1, day <= CivilDate.daysInMonth(year: year, month: month),
            hour < 24, minute < 60, second <= 60
        else { return nil }
        var millis = 0
        if b.count > 20 {
            let fraction = b[19..<(b.count - 1)]
            guard fraction.count >= 2, fraction.first == UInt8(ascii: "."),
                let value = digits(20..<min(b.count - 1, 24)), b[20..<(b.count - 1)].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
            else { return nil }
            let kept = min(b.count - 1, 24) - 20
            var scale = 1
            for _ in 0..<kept { scale *= 10 }
            millis = (value * 1000 * 2 + scale) / (scale * 2)
        } else if b.count != 20 {
            return nil
        }
        let days = CivilDate.daysSinceUnixEpoch(year: year, month: month, day: day)
        return days * 86_400_000 + Int64(((hour * 60 + minute) * 60 + second) * 1000 + millis)
    }
}

/// Proleptic Gregorian calendar arithmetic, shared by the receivers' parsers and ``ISO8601Time``.
package enum CivilDate {
    package static func isLeap(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    package static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01. Counts whole 400-year cycles (146 097 days each) from year 0 and
    /// treats March as the first month, so that the leap day is the last day of the counted year.
    package static func daysSinceUnixEpoch(year: Int, month: Int, day: Int) -> Int64 {
        let shiftedYear = Int64(month <= 2 ? year - 1 : year)
        let cycle = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfCycle = shiftedYear - cycle * 400
        let monthFromMarch = Int64(month > 2 ? month - 3 : month + 9)
        let dayOfYear = (153 * monthFromMarch + 2) / 5 + Int64(day) - 1
        let dayOfCycle = yearOfCycle * 365 + yearOfCycle / 4 - yearOfCycle / 100 + dayOfYear
        // 719 468 days lie between 0000-03-01 and 1970-01-01.
        return cycle * 146_097 + dayOfCycle - 719_468
    }

    /// The inverse of ``daysSinceUnixEpoch(year:month:day:)``.
    package static func civil(fromDaysSinceUnixEpoch days: Int64) -> (Int, Int, Int) {
        let shifted = days + 719_468
        let cycle = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfCycle = shifted - cycle * 146_097
        let yearOfCycle = (dayOfCycle - dayOfCycle / 1460 + dayOfCycle / 36524 - dayOfCycle / 146_096) / 365
        let dayOfYear = dayOfCycle - (365 * yearOfCycle + yearOfCycle / 4 - yearOfCycle / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        let year = yearOfCycle + cycle * 400 + (month <= 2 ? 1 : 0)
        return (Int(year), Int(month), Int(day))
    }
}
