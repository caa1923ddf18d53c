/// The index's numbers as the writer writes them, read fast: eight digits at a time, and a
/// whole `[entry, offset, size, crc]` row in one pass when it is in the writer's own form.
extension IndexParser {
    /// The writer's own form, `[1,2,3,4]` without spaces and with numbers of at most 18 digits,
    /// read eight digits at a time; `nil` (position unchanged) for anything else, which the
    /// general path then parses or reports precisely.
    mutating func compactQuad() -> (UInt64, UInt64, UInt64, UInt64, Int?)? {
        var index = position
        guard index < bytes.count, bytes.byte(at: index) == UInt8(ascii: "[") else { return nil }
        index += 1
        guard let number = Self.compactNumber(bytes, &index, then: UInt8(ascii: ",")),
            let offset = Self.compactNumber(bytes, &index, then: UInt8(ascii: ",")),
            let size = Self.compactNumber(bytes, &index, then: UInt8(ascii: ","))
        else { return nil }
        let crcStart = index
        if let crc = Self.compactNumber(bytes, &index, then: UInt8(ascii: "]")) {
            position = index
            return (number, offset, size, crc, nil)
        }
        index = crcStart
        guard let crc = Self.compactNumber(bytes, &index, then: UInt8(ascii: ",")),
            let hash = Self.hashString(bytes, at: index), hash &+ 65 < bytes.count,
            bytes.byte(at: hash &+ 65) == UInt8(ascii: "]")
        else { return nil }
        position = hash &+ 66
        return (number, offset, size, crc, hash)
    }

    /// 1 to 18 digits, no leading zero, then `delimiter`; advances past the delimiter.
    ///
    /// With 16 bytes to read, numbers of up to 15 digits take two word loads and no loop;
    /// longer ones, and those near the end, take ``compactNumberAnywhere(_:_:then:)``.
    @inline(__always)
    static func compactNumber(_ bytes: RawBytes, _ index: inout Int, then delimiter: UInt8) -> UInt64? {
        guard index &+ 16 <= bytes.count else { return compactNumberAnywhere(bytes, &index, then: delimiter) }
        let first = bytes.word(at: index)
        let firstDigits = first &- 0x3030_3030_3030_3030
        let firstFlags = ((firstDigits &+ 0x7676_7676_7676_7676) | firstDigits) & 0x8080_8080_8080_8080
        let digits: Int
        let value: UInt64
        /// The bytes from the one after the last digit on.
        let after: UInt64
        if firstFlags != 0 {
            digits = firstFlags.trailingZeroBitCount &>> 3
            guard digits > 0 else { return nil }
            value = eightDigits(firstDigits &<< UInt64(64 &- 8 &* digits))
            after = first &>> UInt64(8 &* digits)
        } else {
            let second = bytes.word(at: index &+ 8)
            let secondDigits = second &- 0x3030_3030_3030_3030
            let secondFlags = ((secondDigits &+ 0x7676_7676_7676_7676) | secondDigits) & 0x8080_8080_8080_8080
            guard secondFlags != 0 else { return compactNumberAnywhere(bytes, &index, then: delimiter) }
            let more = secondFlags.trailingZeroBitCount &>> 3
            digits = 8 &+ more
            value =
                more == 0
                ? eightDigits(firstDigits)
                : eightDigits(firstDigits) &* powerOf10(more) &+ eightDigits(secondDigits &<< UInt64(64 &- 8 &* more))
            after = second &>> UInt64(8 &* more)
        }
        guard UInt8(truncatingIfNeeded: after) == delimiter,
            digits == 1 || UInt8(truncatingIfNeeded: first) != UInt8(ascii: "0")
        else { return nil }
        index &+= digits &+ 1
        return value
    }

    /// ``compactNumber(_:_:then:)`` for any position: eight digits at a time while eight bytes
    /// remain, then one at a time.
    static func compactNumberAnywhere(_ bytes: RawBytes, _ index: inout Int, then delimiter: UInt8) -> UInt64? {
        let end = bytes.count
        let start = index
        var value: UInt64 = 0
        while index + 8 <= end {
            // Subtracting '0' from each byte leaves digits as 0...9; any other byte has its top
            // bit set after also adding 0x76 (the first non-digit stops borrows reaching the
            // digits before it).
            let chunk = bytes.word(at: index) &- 0x3030_3030_3030_3030
            let nonDigits = ((chunk &+ 0x7676_7676_7676_7676) | chunk) & 0x8080_8080_8080_8080
            let count = nonDigits == 0 ? 8 : nonDigits.trailingZeroBitCount >> 3
            if count > 0 {
                value = value &* powerOf10(count) &+ eightDigits(chunk << UInt64(64 - 8 * count))
                index += count
            }
            if count < 8 { break }
        }
        if index + 8 > end {
            while index < end {
                let digit = bytes.byte(at: index) &- UInt8(ascii: "0")
                guard digit < 10 else { break }
                value = value &* 10 &+ UInt64(digit)
                index += 1
            }
        }
        let digits = index - start
        guard digits > 0, digits <= 18, index < end,
            digits == 1 || bytes.byte(at: start) != UInt8(ascii: "0"),
            bytes.byte(at: index) == delimiter
        else { return nil }
        index += 1
        return value
    }

    /// The number written by eight digit values (0...9), one per byte, the first in the lowest
    /// byte; leading zero bytes are leading zeros.
    @inline(__always)
    static func eightDigits(_ bytes: UInt64) -> UInt64 {
        // (In Swift, >> binds tighter than &*.)
        var value = ((bytes & 0x0F0F_0F0F_0F0F_0F0F) &* 2561) >> 8
        value = ((value & 0x00FF_00FF_00FF_00FF) &* 6_553_601) >> 16
        return (((value & 0x0000_FFFF_0000_FFFF) &* 42_949_672_960_001) >> 32) & 0xFFFF_FFFF
    }

    @inline(__always)
    static func powerOf10(_ exponent: Int) -> UInt64 {
        switch exponent {
        case 1: 10
        case 2: 100
        case 3: 1000
        case 4: 10000
        case 5: 100_000
        case 6: 1_000_000
        case 7: 10_000_000
        default: 100_000_000
        }
    }
}
