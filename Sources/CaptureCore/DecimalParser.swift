/// Parses decimal numbers (`-12.5`, `0.001`, `9.81e-3`) from ASCII bytes without allocating.
///
/// Uses the exact fast path (a mantissa below 2⁵³ times a power of ten up to 10²², both exactly
/// representable, so one IEEE multiplication or division gives the correctly rounded result) and
/// falls back to a slower, still correctly rounded conversion through `Double(String)` otherwise.
/// Rejects `nan`, `inf`, hexadecimal and anything with stray characters.
public enum DecimalParser {
    private static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return nil }
        var position = 0
        guard let value = scan(base, &position, bytes.count), position == bytes.count else { return nil }
        return value
    }

    /// Parses a number starting at `position` and stops at the first byte that cannot continue
    /// it (or at `end`), leaving `position` there. Returns `nil` if no valid number starts at
    /// `position`; the caller checks that the number ends where the field ends.
    @inline(__always)
    static func scan(_ bytes: UnsafePointer<UInt8>, _ position: inout Int, _ end: Int) -> Double? {
        let start = position
        var index = position
        var negative = false
        if index < end, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        var mantissa: UInt64 = 0
        var significantDigits = 0
        var exponent = 0
        var sawDigit = false
        while index < end, bytes[index] &- 0x30 < 10 {
            sawDigit = true
            let digit = UInt64(bytes[index] &- 0x30)
            if significantDigits < 19 {
                mantissa = mantissa &* 10 &+ digit
                if mantissa != 0 { significantDigits += 1 }
            } else {
                exponent += 1
            }
            index += 1
        }
        if index < end, bytes[index] == UInt8(ascii: ".") {
            index += 1
            while index < end, bytes[index] &- 0x30 < 10 {
                sawDigit = true
                let digit = UInt64(bytes[index] &- 0x30)
                if significantDigits < 19 {
                    mantissa = mantissa &* 10 &+ digit
                    if mantissa != 0 { significantDigits += 1 }
                    exponent -= 1
                }
                index += 1
            }
        }
        guard sawDigit else { return nil }
        if index < end, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            var expNegative = false
            if index < end, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
                expNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            var value = 0
            var sawExpDigit = false
            while index < end, bytes[index] &- 0x30 < 10 {
                sawExpDigit = true
                if value < 10_000 { value = value * 10 + Int(bytes[index] &- 0x30) }
                index += 1
            }
            guard sawExpDigit else { return nil }
            exponent += expNegative ? -value : value
        }
        guard index - start <= 64 else { return nil }
        position = index
        if mantissa < (1 << 53), significantDigits < 19, exponent >= -22, exponent <= 22 {
            var value = Double(mantissa)
            value = exponent < 0 ? value / powersOfTen[-exponent] : value * powersOfTen[exponent]
            return negative ? -value : value
        }
        // Slow path: let the standard library round correctly.
        let text = String(decoding: UnsafeBufferPointer(start: bytes + start, count: index - start), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { return nil }
        return value
    }
}
