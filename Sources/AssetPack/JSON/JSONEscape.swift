/// JSON's string escapes (`\n`, `\"`, `\u00e9`, surrogate pairs), decoded in one place for both of
/// the package's JSON readers: the index parser and the line-aware reader of hand-written files.
/// Each reader words the problems in its own messages.
enum JSONEscape {
    /// Why an escape cannot be decoded.
    enum Problem: Error, Equatable {
        /// The input ends inside the escape.
        case unterminated
        /// A letter that is no JSON escape follows the backslash.
        case unknown(UInt8)
        /// `\u` is not followed by four hex digits.
        case badHexDigits
        /// A `\u` surrogate without its other half.
        case loneSurrogate
    }

    /// Decodes the escape whose letter is at `position` (just after the backslash), appends its
    /// UTF-8 bytes to `out` and moves `position` past it. `byte(i)` reads the input, which has
    /// `count` bytes.
    @inline(__always)
    static func decode(
        at position: inout Int, count: Int, into out: inout [UInt8], byte: (Int) -> UInt8
    ) throws(Problem) {
        guard position < count else { throw .unterminated }
        let letter = byte(position)
        position += 1
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(letter)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hex4(at: &position, count: count, byte: byte)
            if (0xD800..<0xDC00).contains(scalar) {
                guard position + 1 < count, byte(position) == UInt8(ascii: "\\"), byte(position + 1) == UInt8(ascii: "u") else {
                    throw .loneSurrogate
                }
                position += 2
                let low = try hex4(at: &position, count: count, byte: byte)
                guard (0xDC00..<0xE000).contains(low) else { throw .loneSurrogate }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw .loneSurrogate }
            out.append(contentsOf: Array(String(Character(unicode)).utf8))
        default:
            throw .unknown(letter)
        }
    }

    /// Four hex digits at `position`, as a number; moves `position` past them.
    @inline(__always)
    private static func hex4(at position: inout Int, count: Int, byte: (Int) -> UInt8) throws(Problem) -> UInt32 {
        guard position + 4 <= count else { throw .badHexDigits }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let digit = byte(position)
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = value << 4 | UInt32(digit - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = value << 4 | UInt32(digit - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = value << 4 | UInt32(digit - UInt8(ascii: "A") + 10)
            default: throw .badHexDigits
            }
            position += 1
        }
        return value
    }
}
