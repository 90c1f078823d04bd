/// gpsd's timestamps: ISO 8601 UTC such as `2022-10-18T11:32:58.000Z`.
public enum GPSDTime {
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
