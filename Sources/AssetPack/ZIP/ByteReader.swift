/// A bounds-checked little-endian cursor over a window of a pack's bytes.
///
/// Every read checks the window's end and returns `nil` instead of trapping, so a field that
/// runs past the end of a record becomes an error at the caller, never a read outside memory.
struct ByteReader {
    let bytes: RawBytes
    /// The window's position in the file, for error offsets.
    let fileOffset: UInt64
    private(set) var position: Int = 0

    init(_ bytes: UnsafeRawBufferPointer, fileOffset: UInt64 = 0) {
        self.bytes = RawBytes(bytes)
        self.fileOffset = fileOffset
    }

    var remaining: Int { bytes.count - position }
    var currentFileOffset: UInt64 { fileOffset + UInt64(position) }

    mutating func seek(to newPosition: Int) -> Bool {
        guard newPosition >= 0, newPosition <= bytes.count else { return false }
        position = newPosition
        return true
    }

    mutating func skip(_ count: Int) -> Bool { seek(to: position + count) }

    mutating func u16() -> UInt16? {
        guard remaining >= 2 else { return nil }
        defer { position += 2 }
        return bytes.integer(at: position, as: UInt16.self)
    }

    mutating func u32() -> UInt32? {
        guard remaining >= 4 else { return nil }
        defer { position += 4 }
        return bytes.integer(at: position, as: UInt32.self)
    }

    mutating func u64() -> UInt64? {
        guard remaining >= 8 else { return nil }
        defer { position += 8 }
        return bytes.integer(at: position, as: UInt64.self)
    }

    /// The next `count` bytes as a sub-window, or `nil` if fewer remain.
    mutating func take(_ count: Int) -> UnsafeRawBufferPointer? {
        guard count >= 0, remaining >= count else { return nil }
        defer { position += count }
        return bytes.slice(position..<position + count).buffer
    }
}

/// Appends little-endian fields to a byte array (the writer's side of ``ByteReader``).
extension Array where Element == UInt8 {
    mutating func appendLE(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value))
        append(UInt8(truncatingIfNeeded: value >> 8))
    }

    mutating func appendLE(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    mutating func appendLE(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }
}
