/// The JSON tokens the index is made of (RFC 8259, strict): whitespace, punctuation, numbers,
/// strings with their escapes (decoded by ``JSONEscape``, their UTF-8 checked by
/// ``UTF8Validation``), and values skipped whole.
extension IndexParser {

    @inline(__always)
    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes.byte(at: position) {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    func peek() -> UInt8? { position < bytes.count ? bytes.byte(at: position) : nil }

    @inline(__always)
    mutating func expect(_ byte: UInt8) throws(Failure) {
        // The writer's form has no whitespace: the byte is usually right here.
        if position < bytes.count, bytes.byte(at: position) == byte {
            position += 1
            return
        }
        try expectAfterWhitespace(byte)
    }

    mutating func expectAfterWhitespace(_ byte: UInt8) throws(Failure) {
        skipWhitespace()
        guard peek() == byte else {
            throw fail("expected '\(Character(Unicode.Scalar(byte)))'")
        }
        position += 1
    }

    mutating func parseUInt() throws(Failure) -> UInt64 {
        skipWhitespace()
        let start = position
        var value: UInt64 = 0
        // Up to 19 digits cannot overflow; only longer numbers take the checked path.
        while position < bytes.count, position - start < 19 {
            let digit = bytes.byte(at: position) &- UInt8(ascii: "0")
            guard digit < 10 else { break }
            value = value &* 10 &+ UInt64(digit)
            position += 1
        }
        while position < bytes.count {
            let digit = bytes.byte(at: position) &- UInt8(ascii: "0")
            guard digit < 10 else { break }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(digit))
            guard !overflow1, !overflow2 else { throw fail("number too large") }
            value = sum
            position += 1
        }
        guard position > start else { throw fail("expected a non-negative integer") }
        guard position - start == 1 || bytes.byte(at: start) != UInt8(ascii: "0") else { throw fail("leading zero") }
        if let byte = peek(), byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            throw fail("expected an integer")
        }
        return value
    }

    mutating func parseSmallInt() throws(Failure) -> Int {
        let value = try parseUInt()
        guard value <= UInt64(Int32.max) else { throw fail("number too large") }
        return Int(value)
    }

    mutating func parseStringValue() throws(Failure) -> String {
        skipWhitespace()
        var buffer: [UInt8] = []
        try appendString(to: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    /// Appends bytes to the current path; a path over 65,535 bytes is an error.
    @inline(__always)
    mutating func appendToPath(_ part: RawBytes) throws(Failure) {
        guard part.count <= Self.maxPath - pathLength, let target = path.baseAddress, let source = part.base else {
            if part.isEmpty { return }
            throw fail("a path is longer than 65,535 bytes")
        }
        (target + pathLength).copyMemory(from: source, byteCount: part.count)
        pathLength += part.count
    }

    /// Decodes a JSON string onto the current path.
    mutating func appendPathComponent() throws(Failure) {
        guard peek() == UInt8(ascii: "\"") else { throw fail("expected a string") }
        position += 1
        while true {
            let (run, ended) = try stringRun()
            if !run.isEmpty { try appendToPath(bytes.slice(run)) }
            if ended { return }
            var decoded: [UInt8] = []
            try appendEscape(to: &decoded)
            for byte in decoded {
                guard pathLength < Self.maxPath else { throw fail("a path is longer than 65,535 bytes") }
                path[pathLength] = byte
                pathLength += 1
            }
        }
    }

    /// Decodes a JSON string, appending its UTF-8 bytes; rejects invalid UTF-8 and lone surrogates.
    mutating func appendString(to out: inout [UInt8]) throws(Failure) {
        guard peek() == UInt8(ascii: "\"") else { throw fail("expected a string") }
        position += 1
        while true {
            let (run, ended) = try stringRun()
            out.append(contentsOf: bytes.slice(run).buffer)
            if ended { return }
            try appendEscape(to: &out)
        }
    }

    /// The next run of plain bytes inside a string, found eight bytes at a time where possible;
    /// runs with non-ASCII bytes are validated as UTF-8. Consumes what ends the run: the closing
    /// quote (`ended`) or a backslash (an escape follows); a control byte is an error.
    @inline(__always)
    mutating func stringRun() throws(Failure) -> (run: Range<Int>, ended: Bool) {
        let runStart = position
        // Words with no '"', no '\\', no control byte and no non-ASCII byte are skipped whole.
        while position + 8 <= bytes.count {
            let word = bytes.word(at: position)
            let quote = word ^ 0x2222_2222_2222_2222
            let backslash = word ^ 0x5C5C_5C5C_5C5C_5C5C
            let special =
                ((quote &- 0x0101_0101_0101_0101) & ~quote) | ((backslash &- 0x0101_0101_0101_0101) & ~backslash)
                | ((word &- 0x2020_2020_2020_2020) & ~word) | word
            let found = special & 0x8080_8080_8080_8080
            if found != 0 {
                // Borrows only run upward, so the lowest flag marks the first special byte.
                position += found.trailingZeroBitCount >> 3
                break
            }
            position += 8
        }
        var nonASCII = false
        while position < bytes.count {
            let byte = bytes.byte(at: position)
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            if byte >= 0x80 { nonASCII = true }
            position += 1
        }
        let run = runStart..<position
        if nonASCII { try validateUTF8(run) }
        guard position < bytes.count else { throw fail("unterminated string") }
        switch bytes.byte(at: position) {
        case UInt8(ascii: "\""):
            position += 1
            return (run, true)
        case UInt8(ascii: "\\"):
            position += 1
            return (run, false)
        default:
            throw fail("control character in a string")
        }
    }

    mutating func validateUTF8(_ run: Range<Int>) throws(Failure) {
        var index = run.lowerBound
        while index < run.upperBound {
            if bytes.byte(at: index) < 0x80 {
                index += 1
                continue
            }
            let length = UTF8Validation.sequenceLength(bytes, at: index)
            guard length > 0, index + length <= run.upperBound else {
                position = index
                throw fail("invalid UTF-8")
            }
            index += length
        }
    }

    mutating func appendEscape(to out: inout [UInt8]) throws(Failure) {
        let bytes = self.bytes
        do {
            try JSONEscape.decode(at: &position, count: bytes.count, into: &out) { bytes.byte(at: $0) }
        } catch {
            switch error {
            case .unterminated: throw fail("unterminated escape")
            case .unknown: throw fail("bad escape")
            case .badHexDigits: throw fail("bad \\u escape")
            case .loneSurrogate: throw fail("lone surrogate")
            }
        }
    }

    /// Skips any JSON value (for keys this version does not know).
    mutating func skipValue(depth: Int) throws(Failure) {
        guard depth < Self.maxDepth else { throw fail("nested too deeply") }
        skipWhitespace()
        guard let byte = peek() else { throw fail("expected a value") }
        switch byte {
        case UInt8(ascii: "\""):
            var scratch: [UInt8] = []
            try appendString(to: &scratch)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            let close = byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
            position += 1
            skipWhitespace()
            if peek() == close {
                position += 1
                return
            }
            while true {
                if byte == UInt8(ascii: "{") {
                    skipWhitespace()
                    var scratch: [UInt8] = []
                    try appendString(to: &scratch)
                    try expect(UInt8(ascii: ":"))
                }
                try skipValue(depth: depth + 1)
                skipWhitespace()
                if peek() == close {
                    position += 1
                    return
                }
                try expect(UInt8(ascii: ","))
            }
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        default:
            if byte == UInt8(ascii: "-") { position += 1 }
            _ = try parseUInt()
            if peek() == UInt8(ascii: ".") {
                position += 1
                _ = try parseUInt()
            }
        }
    }

    mutating func literal(_ word: StaticString) throws(Failure) {
        let expected = UnsafeRawBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        guard position + expected.count <= bytes.count,
            bytes.slice(position..<position + expected.count).buffer.elementsEqual(expected)
        else { throw fail("bad literal") }
        position += expected.count
    }
}
