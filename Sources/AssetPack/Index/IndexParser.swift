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

    let bytes: RawBytes
    var position = 0
    /// The current folder's path, then the current file's: `maxPath` bytes and room for one
    /// more component, which may run past the limit before it is refused.
    let path: UnsafeMutableRawBufferPointer
    var pathLength = 0
    private(set) var table: EntryTable
    /// The most path bytes all files may have together.
    let pathBudget: Int

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

    func fail(_ detail: String) -> Failure { Failure(detail: detail, position: position) }

    mutating func parseDocument() throws(Failure) -> PackMetadata {
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
    mutating func parseFolder(depth: Int) throws(Failure) {
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
    mutating func parseFile() throws(Failure) {
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
    mutating func parseHash() throws(Failure) -> Int {
        guard let start = Self.hashString(bytes, at: position) else {
            throw fail("expected a SHA-256 as 64 lowercase hex digits in quotes")
        }
        position = start + 65
        return start
    }

    /// Where the digits start, if a quoted hash of 64 lowercase hex digits is at `index`.
    @inline(__always)
    static func hashString(_ bytes: RawBytes, at index: Int) -> Int? {
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
}
