/// Parses decimal numbers (`-12.5`, `0.001`, `9.81e-3`) from ASCII bytes without allocating.
///
/// Uses the exact fast path (a mantissa below 2⁵³ times a power of ten up to 10²², both exactly
/// representable, so one IEEE multiplication or division gives the correctly rounded result) and
/// falls back to a slower, still correctly rounded conversion through `Double(String)` otherwise.
/// Rejects `nan`, `inf`, hexadecimal and anything with stray characters.
public enum DecimalParser {
    /// 10^e for 0 ≤ e ≤ 22, all exactly representable. A switch (a jump table) rather than a
    /// global array: no lazy-initialisation check or bounds check per number.
    @inline(__always)
    private static func powerOfTen(_ e: Int) -> Double {
        switch e {
        case 0: 1e0
        case 1: 1e1
        case 2: 1e2
        case 3: 1e3
        case 4: 1e4
        case 5: 1e5
        case 6: 1e6
        case 7: 1e7
        case 8: 1e8
        case 9: 1e9
        case 10: 1e10
        case 11: 1e11
        case 12: 1e12
        case 13: 1e13
        case 14: 1e14
        case 15: 1e15
        case 16: 1e16
        case 17: 1e17
        case 18: 1e18
        case 19: 1e19
        case 20: 1e20
        case 21: 1e21
        default: 1e22
        }
    }

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
        // Up to 19 digits cannot overflow a UInt64; longer numbers take the slow path below.
        var mantissa: UInt64 = 0
        let integerStart = index
        while index < end {
            let digit = bytes[index] &- 0x30
            if digit >= 10 { break }
            mantissa = mantissa &* 10 &+ UInt64(digit)
            index += 1
        }
        var digits = index - integerStart
        var exponent = 0
        if index < end, bytes[index] == UInt8(ascii: ".") {
            index += 1
            let fractionStart = index
            while index < end {
                let digit = bytes[index] &- 0x30
                if digit >= 10 { break }
                mantissa = mantissa &* 10 &+ UInt64(digit)
                index += 1
            }
            digits += index - fractionStart
            exponent = fractionStart - index
        }
        guard digits > 0 else { return nil }
        if index < end, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            var expNegative = false
            if index < end, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
                expNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            var value = 0
            let exponentStart = index
            while index < end {
                let digit = bytes[index] &- 0x30
                if digit >= 10 { break }
                if value < 10_000 { value = value * 10 + Int(digit) }
                index += 1
            }
            guard index > exponentStart else { return nil }
            exponent += expNegative ? -value : value
        }
        guard index - start <= 64 else { return nil }
        position = index
        if digits <= 19, mantissa < (1 << 53), exponent >= -22, exponent <= 22 {
            var value = Double(mantissa)
            value = exponent < 0 ? value / powerOfTen(-exponent) : value * powerOfTen(exponent)
            return negative ? -value : value
        }
        // Slow path: let the standard library round correctly.
        let text = String(decoding: UnsafeBufferPointer(start: bytes + start, count: index - start), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { return nil }
        return value
    }
}
