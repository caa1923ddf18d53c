/// Parses the JSON index written by ``IndexWriter``: strict JSON (RFC 8259) over raw bytes,
/// with no intermediate tree. File paths go straight into an ``EntryTable``.
///
/// The index lists files in entry order: the n-th file listed must carry entry number n.
/// Unknown top-level keys are skipped (later format revisions may add some).
struct IndexParser {
    struct Failure: Error {
        var detail: String
        var position: Int
    }

    static let maxDepth = 600

    /// The longest path an entry can have (the zip limit).
    static let maxPath = Int(UInt16.max)

    private let bytes: RawBytes
    private var position = 0
    /// The current folder's path, then the current file's: `maxPath` bytes and room for one
    /// more component, which may run past the limit before it is refused.
    private let path: UnsafeMutableRawBufferPointer
    private var pathLength = 0
    private(set) var table: EntryTable
    /// The most path bytes all files may have together.
    private let pathBudget: Int

    private init(bytes: UnsafeRawBufferPointer, path: UnsafeMutableRawBufferPointer, pathBudget: Int) {
        self.bytes = RawBytes(bytes)
        self.path = path
        self.pathBudget = min(pathBudget, EntryTable.maxPathBytes)
        table = EntryTable(expectedCount: bytes.count / 40, expectedPathBytes: bytes.count / 2)
    }

    /// Parses `bytes`; returns the metadata and the table of content entries.
    ///
    /// A folder's name is written once but repeats in the path of every file under it, so a
    /// small index can describe paths adding up to gigabytes. `pathBudget` bounds them: a pack's
    /// central directory holds every name in full, so its size is the budget.
    static func parse(
        _ bytes: UnsafeRawBufferPointer, pathBudget: Int = EntryTable.maxPathBytes
    ) throws(Failure) -> (PackMetadata, EntryTable) {
        let path = UnsafeMutableRawBufferPointer.allocate(byteCount: maxPath + 1, alignment: 8)
        defer { path.deallocate() }
        var parser = IndexParser(bytes: bytes, path: path, pathBudget: pathBudget)
        let metadata = try parser.parseDocument()
        return (metadata, parser.table)
    }

    private func fail(_ detail: String) -> Failure { Failure(detail: detail, position: position) }

    private mutating func parseDocument() throws(Failure) -> PackMetadata {
        var format: Int?
        var name: String?
        var locale: String?
        var contentVersion: String?
        var alignment: Int?
        var entryCount: Int?
        var digest: String?
        var sawFiles = false
        try expect(UInt8(ascii: "{"))
        var first = true
        var seen = Set<String>()
        while true {
            skipWhitespace()
            if peek() == UInt8(ascii: "}") {
                position += 1
                break
            }
            if !first { try expect(UInt8(ascii: ",")) }
            first = false
            let key = try parseStringValue()
            guard seen.insert(key).inserted else { throw fail("duplicate key \"\(key)\"") }
            try expect(UInt8(ascii: ":"))
            switch key {
            case "format": format = try parseSmallInt()
            case "name": name = try parseStringValue()
            case "locale": locale = try parseStringValue()
            case "contentVersion": contentVersion = try parseStringValue()
            case "alignment": alignment = try parseSmallInt()
            case "entryCount": entryCount = try parseSmallInt()
            case "digest": digest = try parseStringValue()
            case "files":
                sawFiles = true
                try parseFolder(depth: 1)
            default: try skipValue(depth: 1)
            }
        }
        skipWhitespace()
        guard position == bytes.count else { throw fail("trailing bytes after the index") }
        guard let format else { throw fail("no \"format\"") }
        guard format == 1 || format == 2 else { throw fail("unsupported format version \(format)") }
        // Format 2 lists every entry's SHA-256, format 1 none.
        let hashed = table.hashedCount
        guard format == 2 ? hashed == table.count : hashed == 0 else {
            throw fail(
                format == 2
                    ? "format 2 lists a SHA-256 for every file, but \(table.count - hashed) have none"
                    : "format 1 lists no SHA-256, but \(hashed) files have one")
        }
        guard let name, let alignment, let entryCount, let digest, sawFiles else {
            throw fail("missing one of \"name\", \"alignment\", \"entryCount\", \"digest\", \"files\"")
        }
        guard entryCount == table.count else {
            throw fail("\"entryCount\" is \(entryCount) but the index lists \(table.count) files")
        }
        return PackMetadata(
            formatVersion: format, name: name, locale: locale, contentVersion: contentVersion, alignment: alignment,
            entryCount: entryCount, digest: digest)
    }

    /// A folder object: keys are names; values are folders (objects) or files (arrays).
    private mutating func parseFolder(depth: Int) throws(Failure) {
        guard depth < Self.maxDepth else { throw fail("folders nested too deeply") }
        try expect(UInt8(ascii: "{"))
        let prefixLength = pathLength
        var first = true
        while true {
            skipWhitespace()
            if peek() == UInt8(ascii: "}") {
                position += 1
                return
            }
            if !first { try expect(UInt8(ascii: ",")) }
            first = false
            skipWhitespace()
            try appendPathComponent()
            guard pathLength > prefixLength else { throw fail("empty name") }
            try expect(UInt8(ascii: ":"))
            skipWhitespace()
            if peek() == UInt8(ascii: "{") {
                guard pathLength < Self.maxPath else { throw fail("a path is longer than 65,535 bytes") }
                path[pathLength] = UInt8(ascii: "/")
                pathLength += 1
                try parseFolder(depth: depth + 1)
            } else {
                try parseFile()
            }
            pathLength = prefixLength
        }
    }

    /// `[entryNumber, dataOffset, size, crc32]`, and in format 2 `"sha256"` after the CRC.
    private mutating func parseFile() throws(Failure) {
        let number: UInt64
        let offset: UInt64
        let size: UInt64
        let crc: UInt64
        var hashPosition: Int?
        if let quad = compactQuad() {
            (number, offset, size, crc, hashPosition) = quad
        } else {
            try expect(UInt8(ascii: "["))
            number = try parseUInt()
            try expect(UInt8(ascii: ","))
            offset = try parseUInt()
            try expect(UInt8(ascii: ","))
            size = try parseUInt()
            try expect(UInt8(ascii: ","))
            crc = try parseUInt()
            skipWhitespace()
            if peek() == UInt8(ascii: ",") {
                position += 1
                skipWhitespace()
                hashPosition = try parseHash()
            }
            try expect(UInt8(ascii: "]"))
        }
        guard number == UInt64(table.count) else {
            throw fail("file #\(table.count) has entry number \(number) (files must be listed in entry order)")
        }
        guard crc <= UInt64(UInt32.max) else { throw fail("CRC \(crc) does not fit 32 bits") }
        guard pathLength <= pathBudget - table.pathBytesCount else {
            throw fail("the files' paths add up to more than the \(pathBudget) bytes the central directory holds")
        }
        guard hashPosition.map({ $0 <= Int(UInt32.max) }) ?? true else { throw fail("the index is too large") }
        table.appendStored(
            path: RawBytes(base: path.baseAddress, count: pathLength), dataOffset: offset, size: size, crc32: UInt32(crc),
            hashPosition: hashPosition.map { UInt32($0) })
    }

    /// `"` and 64 lowercase hex digits and `"`; returns where the digits start.
    private mutating func parseHash() throws(Failure) -> Int {
        guard let start = Self.hashString(bytes, at: position) else {
            throw fail("expected a SHA-256 as 64 lowercase hex digits in quotes")
        }
        position = start + 65
        return start
    }

    /// Where the digits start, if a quoted hash of 64 lowercase hex digits is at `index`.
    @inline(__always)
    private static func hashString(_ bytes: RawBytes, at index: Int) -> Int? {
        guard index &+ 66 <= bytes.count, bytes.byte(at: index) == UInt8(ascii: "\""),
            bytes.byte(at: index &+ 65) == UInt8(ascii: "\"")
        else { return nil }
        // Eight bytes at a time: every byte in 0-9 or a-f. For bytes below 0x80, `(x | 0x80) - n`
        // keeps its top bit exactly when x >= n, with no borrow into the next byte.
        let high: UInt64 = 0x8080_8080_8080_8080
        let low: UInt64 = 0x0101_0101_0101_0101
        var word = index &+ 1
        while word < index &+ 65 {
            let x = bytes.word(at: word)
            guard x & high == 0 else { return nil }
            let atLeast0 = ((x | high) &- 0x30 &* low) & high
            let atMost9 = ((0x39 &* low | high) &- x) & high
            let atLeastA = ((x | high) &- 0x61 &* low) & high
            let atMostF = ((0x66 &* low | high) &- x) & high
            guard (atLeast0 & atMost9) | (atLeastA & atMostF) == high else { return nil }
            word &+= 8
        }
        return index &+ 1
    }

    /// The writer's own form, `[1,2,3,4]` without spaces and with numbers of at most 18 digits,
    /// read eight digits at a time; `nil` (position unchanged) for anything else, which the
    /// general path then parses or reports precisely.
    private mutating func compactQuad() -> (UInt64, UInt64, UInt64, UInt64, Int?)? {
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
    private static func compactNumber(_ bytes: RawBytes, _ index: inout Int, then delimiter: UInt8) -> UInt64? {
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
    private static func compactNumberAnywhere(_ bytes: RawBytes, _ index: inout Int, then delimiter: UInt8) -> UInt64? {
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
    private static func eightDigits(_ bytes: UInt64) -> UInt64 {
        // (In Swift, >> binds tighter than &*.)
        var value = ((bytes & 0x0F0F_0F0F_0F0F_0F0F) &* 2561) >> 8
        value = ((value & 0x00FF_00FF_00FF_00FF) &* 6_553_601) >> 16
        return (((value & 0x0000_FFFF_0000_FFFF) &* 42_949_672_960_001) >> 32) & 0xFFFF_FFFF
    }

    @inline(__always)
    private static func powerOf10(_ exponent: Int) -> UInt64 {
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

    // MARK: - Tokens

    @inline(__always)
    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes.byte(at: position) {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    private func peek() -> UInt8? { position < bytes.count ? bytes.byte(at: position) : nil }

    @inline(__always)
    private mutating func expect(_ byte: UInt8) throws(Failure) {
        // The writer's form has no whitespace: the byte is usually right here.
        if position < bytes.count, bytes.byte(at: position) == byte {
            position += 1
            return
        }
        try expectAfterWhitespace(byte)
    }

    private mutating func expectAfterWhitespace(_ byte: UInt8) throws(Failure) {
        skipWhitespace()
        guard peek() == byte else {
            throw fail("expected '\(Character(Unicode.Scalar(byte)))'")
        }
        position += 1
    }

    private mutating func parseUInt() throws(Failure) -> UInt64 {
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

    private mutating func parseSmallInt() throws(Failure) -> Int {
        let value = try parseUInt()
        guard value <= UInt64(Int32.max) else { throw fail("number too large") }
        return Int(value)
    }

    private mutating func parseStringValue() throws(Failure) -> String {
        skipWhitespace()
        var buffer: [UInt8] = []
        try appendString(to: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    /// Appends bytes to the current path; a path over 65,535 bytes is an error.
    @inline(__always)
    private mutating func appendToPath(_ part: RawBytes) throws(Failure) {
        guard part.count <= Self.maxPath - pathLength, let target = path.baseAddress, let source = part.base else {
            if part.isEmpty { return }
            throw fail("a path is longer than 65,535 bytes")
        }
        (target + pathLength).copyMemory(from: source, byteCount: part.count)
        pathLength += part.count
    }

    /// Decodes a JSON string onto the current path.
    private mutating func appendPathComponent() throws(Failure) {
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
    private mutating func appendString(to out: inout [UInt8]) throws(Failure) {
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
    private mutating func stringRun() throws(Failure) -> (run: Range<Int>, ended: Bool) {
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

    private mutating func validateUTF8(_ run: Range<Int>) throws(Failure) {
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

    private mutating func appendEscape(to out: inout [UInt8]) throws(Failure) {
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
    private mutating func skipValue(depth: Int) throws(Failure) {
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

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let expected = UnsafeRawBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        guard position + expected.count <= bytes.count,
            bytes.slice(position..<position + expected.count).buffer.elementsEqual(expected)
        else { throw fail("bad literal") }
        position += expected.count
    }
}

enum UTF8Validation {
    /// The length of the well-formed UTF-8 sequence starting at `index` (a non-ASCII lead byte),
    /// or 0 if it is ill-formed (overlong forms, surrogates and values past U+10FFFF included).
    static func sequenceLength(_ bytes: RawBytes, at index: Int) -> Int {
        let lead = bytes.byte(at: index)
        func continuation(_ offset: Int, _ range: ClosedRange<UInt8> = 0x80...0xBF) -> Bool {
            index + offset < bytes.count && range.contains(bytes.byte(at: index + offset))
        }
        switch lead {
        case 0xC2...0xDF: return continuation(1) ? 2 : 0
        case 0xE0: return continuation(1, 0xA0...0xBF) && continuation(2) ? 3 : 0
        case 0xE1...0xEC, 0xEE...0xEF: return continuation(1) && continuation(2) ? 3 : 0
        case 0xED: return continuation(1, 0x80...0x9F) && continuation(2) ? 3 : 0
        case 0xF0: return continuation(1, 0x90...0xBF) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF1...0xF3: return continuation(1) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF4: return continuation(1, 0x80...0x8F) && continuation(2) && continuation(3) ? 4 : 0
        default: return 0
        }
    }
}
