// Bytes in and out for the event log and what carries it (StudySync's segments): little-endian
// fixed widths, LEB128 varints, length-prefixed strings. Reading never traps: every read is
// bounds-checked and returns nil past the end, lengths are widened and checked before use.

/// Appends values to a byte array.
package struct ByteWriter: Sendable {
    /// The bytes written so far.
    package var bytes: [UInt8] = []

    /// An empty writer.
    package init() {}

    /// One byte.
    package mutating func byte(_ value: UInt8) { bytes.append(value) }

    /// An unsigned LEB128 varint (1–10 bytes).
    package mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// A signed value as a zigzag varint (small magnitudes are short either side of zero).
    package mutating func signed(_ value: Int64) {
        varint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    /// 8 bytes, little-endian.
    package mutating func fixed64(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Raw bytes, no length.
    package mutating func raw(_ value: some Sequence<UInt8>) { bytes.append(contentsOf: value) }

    /// A length (varint) and the bytes.
    package mutating func blob(_ value: [UInt8]) {
        varint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    /// A length (varint) and the UTF-8 bytes.
    package mutating func string(_ value: String) { blob(Array(value.utf8)) }
}

/// Reads values from bytes that may be hostile: every read returns `nil` rather than going past
/// the end, and no read allocates more than the bytes that are there.
package struct ByteReader: Sendable {
    /// The bytes read.
    package let bytes: [UInt8]
    /// The next byte's index.
    package private(set) var offset: Int

    /// A reader at the start of `bytes`.
    package init(_ bytes: [UInt8]) {
        self.bytes = bytes
        offset = 0
    }

    /// Bytes left.
    package var remaining: Int { bytes.count - offset }

    /// Whether every byte has been read.
    package var isAtEnd: Bool { offset >= bytes.count }

    /// One byte.
    package mutating func byte() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// An unsigned LEB128 varint of at most 10 bytes whose value fits 64 bits.
    package mutating func varint() -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard let byte = byte() else { return nil }
            let low = UInt64(byte & 0x7F)
            if shift == 63, low > 1 { return nil }
            value |= low << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
            if shift > 63 { return nil }
        }
    }

    /// A varint that must be at most `limit`, as an `Int`.
    package mutating func count(atMost limit: Int) -> Int? {
        guard let value = varint(), value <= UInt64(limit) else { return nil }
        return Int(value)
    }

    /// A zigzag varint.
    package mutating func signed() -> Int64? {
        guard let raw = varint() else { return nil }
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    /// 8 bytes, little-endian (read in place: no array is made).
    package mutating func fixed64() -> UInt64? {
        guard remaining >= 8 else { return nil }
        var value: UInt64 = 0
        for index in (offset..<(offset + 8)).reversed() { value = value << 8 | UInt64(bytes[index]) }
        offset += 8
        return value
    }

    /// 8 bytes, big-endian (an event id's halves, ``EventID/bytes``), read in place.
    package mutating func bigEndian64() -> UInt64? {
        guard remaining >= 8 else { return nil }
        var value: UInt64 = 0
        for index in offset..<(offset + 8) { value = value << 8 | UInt64(bytes[index]) }
        offset += 8
        return value
    }

    /// `count` raw bytes.
    package mutating func raw(_ count: Int) -> [UInt8]? {
        guard count >= 0, count <= remaining else { return nil }
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }

    /// A length-prefixed blob, the length checked against what is left before anything is read.
    package mutating func blob() -> [UInt8]? {
        guard let length = varint(), length <= UInt64(remaining) else { return nil }
        return raw(Int(length))
    }

    /// Reads a length-prefixed blob and says whether it is `expected`, copying nothing; `nil`
    /// when its length goes past the end.
    package mutating func blob(equals expected: [UInt8]) -> Bool? {
        guard let length = varint(), length <= UInt64(remaining) else { return nil }
        let count = Int(length)
        defer { offset += count }
        guard count == expected.count else { return false }
        for index in 0..<count where bytes[offset + index] != expected[index] { return false }
        return true
    }

    /// A length-prefixed UTF-8 string; invalid UTF-8 is `nil`.
    package mutating func string() -> String? {
        // The length is checked against what is left after the length itself is read.
        guard let length = varint(), length <= UInt64(remaining) else { return nil }
        let bytes = self.bytes[offset..<(offset + Int(length))]
        offset += Int(length)
        // Decoding repairs invalid UTF-8; a string that does not give back its bytes was invalid.
        let text = String(decoding: bytes, as: UTF8.self)
        return text.utf8.elementsEqual(bytes) ? text : nil
    }
}
