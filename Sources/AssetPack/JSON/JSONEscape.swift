/// JSON's string escapes (`\n`, `\"`, `\u00e9`, surrogate pairs), decoded in one place for both of
/// the package's JSON readers (the index parser and the line-aware reader of hand-written files),
/// and written in one place for every JSON the package writes (the index, catalogs, roots, trust
/// state, the tools' `--json`), with one rule: Python's `json.dumps(text, ensure_ascii=False)`'s.
/// Each reader words the problems in its own messages.
package enum JSONEscape {
    /// Appends `bytes` (UTF-8) as a JSON string literal, quotes included: `"` and `\` escaped
    /// with a backslash, `\b \f \n \r \t` by name, every other control character below U+0020
    /// as `\u00xx`; everything else (DEL, U+2028, any other scalar) as it is. A test holds this to
    /// Python's `json` on every class of code point.
    package static func append<C: Collection<UInt8>>(_ bytes: C, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        if !bytes.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            out.append(contentsOf: bytes)
            out.append(UInt8(ascii: "\""))
            return
        }
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), byte]
            case 0x08: out += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
            case 0x0C: out += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
            case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0..<0x20:
                let digits = Array("0123456789abcdef".utf8)
                out += Array("\\u00".utf8) + [digits[Int(byte >> 4)], digits[Int(byte & 15)]]
            default:
                out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// `text` as a JSON string literal, quotes included (the rule of ``append(_:to:)``).
    package static func quoted(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 2)
        append(text.utf8, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

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
