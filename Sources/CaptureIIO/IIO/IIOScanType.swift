package import CaptureCore

/// One value read from a scan buffer, before offset and scale: signed or unsigned, 64 bits at most.
package enum IIORawValue: Sendable, Hashable {
    /// From an `s`/`S` channel, sign-extended.
    case signed(Int64)
    /// From a `u`/`U` channel.
    case unsigned(UInt64)

    /// The value as a Double (exact up to 2⁵³).
    package var doubleValue: Double {
        switch self {
        case .signed(let value): Double(value)
        case .unsigned(let value): Double(value)
        }
    }

    /// The value as Int64, `nil` for unsigned values above `Int64.max`.
    package var int64Value: Int64? {
        switch self {
        case .signed(let value): value
        case .unsigned(let value): value <= UInt64(Int64.max) ? Int64(value) : nil
        }
    }
}

/// The storage format of one channel in a buffered scan, from its `_type` sysfs attribute.
///
/// Grammar: `[be|le]:[s|u|S|U]bits/storagebits[Xrepeat][>>shift]`, e.g. `le:s12/16>>4`,
/// `le:s64/64>>0` (timestamp), `le:s16/16X3>>0` (three values). Upper-case `S`/`U` mean
/// "fully defined" (libiio's reading) and decode like `s`/`u`.
package struct IIOScanType: Sendable, Hashable {
    /// Byte order of the stored value.
    package enum Endianness: Sendable, Hashable {
        /// `le`
        case little
        /// `be`
        case big
    }

    /// Byte order in the buffer (the kernel resolves CPU order to `le`/`be`).
    package let endianness: Endianness
    /// Two's-complement signed (`s`/`S`) or unsigned (`u`/`U`).
    package let isSigned: Bool
    /// Upper-case sign letter: the value uses all its bits ("fully defined").
    package let isFullyDefined: Bool
    /// Significant bits, 1…storageBits.
    package let realBits: Int
    /// Bits the value occupies in the buffer: 8, 16, 32 or 64.
    package let storageBits: Int
    /// Number of consecutive values (≥ 1).
    package let repeatCount: Int
    /// Right shift applied before masking to `realBits`.
    package let shift: Int

    /// Bytes one value occupies (`storageBits / 8`); also its alignment in the scan.
    package var storageBytes: Int { storageBits / 8 }
    /// Bytes the whole channel occupies (`storageBytes × repeatCount`).
    package var length: Int { storageBytes * repeatCount }

    /// Builds a type from parts (validated like parsed ones).
    package init(
        endianness: Endianness, isSigned: Bool, realBits: Int, storageBits: Int, repeatCount: Int = 1, shift: Int = 0,
        isFullyDefined: Bool = false
    ) throws(IIOError) {
        self.endianness = endianness
        self.isSigned = isSigned
        self.isFullyDefined = isFullyDefined
        self.realBits = realBits
        self.storageBits = storageBits
        self.repeatCount = repeatCount
        self.shift = shift
        guard [8, 16, 32, 64].contains(storageBits), (1...storageBits).contains(realBits), repeatCount >= 1,
            shift >= 0, shift + realBits <= storageBits
        else { throw .inconsistentBits(description) }
    }

    /// Parses the text of a `_type` attribute (surrounding whitespace and the newline are ignored).
    package init(parsing text: String) throws(IIOError) {
        let trimmed = IIOSysfs.trim(text)
        var rest = Substring(trimmed)
        let endianness: Endianness
        if rest.hasPrefix("le:") {
            endianness = .little
        } else if rest.hasPrefix("be:") {
            endianness = .big
        } else {
            throw .invalidScanType(trimmed)
        }
        rest = rest.dropFirst(3)
        guard let sign = rest.first else { throw .invalidScanType(trimmed) }
        guard "sSuU".contains(sign) else {
            if sign.isLetter { throw .unsupportedSign(sign, type: trimmed) }
            throw .invalidScanType(trimmed)
        }
        rest = rest.dropFirst()
        func number() throws(IIOError) -> Int {
            let digits = rest.prefix(while: { $0.isASCII && $0.isNumber })
            guard !digits.isEmpty, digits.count <= 4, let value = Int(digits) else { throw .invalidScanType(trimmed) }
            rest = rest.dropFirst(digits.count)
            return value
        }
        let realBits = try number()
        guard rest.first == "/" else { throw .invalidScanType(trimmed) }
        rest = rest.dropFirst()
        let storageBits = try number()
        var repeatCount = 1
        if rest.first == "X" {
            rest = rest.dropFirst()
            repeatCount = try number()
        }
        var shift = 0
        if rest.hasPrefix(">>") {
            rest = rest.dropFirst(2)
            shift = try number()
        }
        guard rest.isEmpty else { throw .invalidScanType(trimmed) }
        do {
            try self.init(
                endianness: endianness, isSigned: sign == "s" || sign == "S", realBits: realBits,
                storageBits: storageBits, repeatCount: repeatCount, shift: shift, isFullyDefined: sign.isUppercase)
        } catch {
            throw .inconsistentBits(trimmed)
        }
    }

    /// Decodes the channel's value(s) starting at `offset` in a scan: read `storageBytes` per
    /// value in the stated byte order, shift right, mask to `realBits`, sign-extend if signed.
    package func decode(_ scan: UnsafeRawBufferPointer, at offset: Int) throws(IIOError) -> [IIORawValue] {
        guard offset >= 0, offset + length <= scan.count else {
            throw .bufferTooShort(needed: offset + length, available: scan.count)
        }
        var values: [IIORawValue] = []
        values.reserveCapacity(repeatCount)
        for item in 0..<repeatCount {
            values.append(value(scan, at: offset + item * storageBytes))
        }
        return values
    }

    /// The first value of ``decode(_:at:)``, without building an array: what capture uses of a
    /// channel, decoded for every scan (thousands a second).
    package func decodeFirst(_ scan: UnsafeRawBufferPointer, at offset: Int) throws(IIOError) -> IIORawValue {
        guard offset >= 0, offset + storageBytes <= scan.count else {
            throw .bufferTooShort(needed: offset + storageBytes, available: scan.count)
        }
        return value(scan, at: offset)
    }

    /// One value at `start`; the caller has checked the bounds.
    private func value(_ scan: UnsafeRawBufferPointer, at start: Int) -> IIORawValue {
        var word: UInt64 = 0
        for byte in 0..<storageBytes {
            let position = endianness == .big ? byte : storageBytes - 1 - byte
            word = word << 8 | UInt64(scan[start + position])
        }
        word >>= UInt64(shift)
        let mask: UInt64 = realBits == 64 ? ~0 : (1 << UInt64(realBits)) - 1
        word &= mask
        if isSigned {
            let signBit: UInt64 = 1 << UInt64(realBits - 1)
            if word & signBit != 0 { word |= ~mask }
            return .signed(Int64(bitPattern: word))
        }
        return .unsigned(word)
    }

    /// ``decode(_:at:)`` for a byte array.
    package func decode(_ scan: [UInt8], at offset: Int) throws(IIOError) -> [IIORawValue] {
        let result = scan.withUnsafeBytes { buffer in
            Result { () throws(IIOError) -> [IIORawValue] in try decode(buffer, at: offset) }
        }
        return try result.get()
    }
}

extension IIOScanType: CustomStringConvertible {
    /// The kernel's spelling, e.g. `le:s16/16>>0` or `le:s16/16X3>>0`.
    package var description: String {
        let sign = isSigned ? (isFullyDefined ? "S" : "s") : (isFullyDefined ? "U" : "u")
        let repeatText = repeatCount > 1 ? "X\(repeatCount)" : ""
        return "\(endianness == .little ? "le" : "be"):\(sign)\(realBits)/\(storageBits)\(repeatText)>>\(shift)"
    }
}
