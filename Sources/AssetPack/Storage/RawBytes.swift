/// A window of memory read through a raw pointer: the one type through which the library loads
/// bytes it does not own as Swift values (a mapped pack, an index being parsed, the path arena,
/// a block being hashed).
///
/// Every load asserts that it lies inside the window. The asserts run in debug builds (the test
/// build) and cost nothing in release builds, where the hot paths (opening an index, looking a
/// path up) need every cycle; the callers' own bounds checks are what make release builds safe,
/// and the asserts are there to catch a caller whose check is wrong.
struct RawBytes {
    /// The first byte; `nil` only for an empty window.
    let base: UnsafeRawPointer?
    /// The number of bytes in the window.
    let count: Int

    init(_ buffer: UnsafeRawBufferPointer) {
        base = buffer.baseAddress
        count = buffer.count
    }

    init(base: UnsafeRawPointer?, count: Int) {
        assert(count >= 0 && (count == 0 || base != nil), "RawBytes: \(count) bytes at a nil pointer")
        self.base = base
        self.count = count
    }

    /// Whether the window is empty.
    var isEmpty: Bool { count == 0 }

    /// The window as a buffer (for calls that take one: CRC-32, copies).
    var buffer: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// The byte at `offset`.
    @inline(__always)
    func byte(at offset: Int) -> UInt8 {
        assert(offset >= 0 && offset < count, "RawBytes: byte \(offset) of \(count)")
        return base.unsafelyUnwrapped.load(fromByteOffset: offset, as: UInt8.self)
    }

    /// The eight bytes at `offset` as a little-endian word (any alignment).
    @inline(__always)
    func word(at offset: Int) -> UInt64 {
        assert(offset >= 0 && offset <= count - 8, "RawBytes: word at \(offset) of \(count)")
        return UInt64(littleEndian: base.unsafelyUnwrapped.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// The eight bytes at `offset` as a big-endian word (byte order compares as word order).
    @inline(__always)
    func bigEndianWord(at offset: Int) -> UInt64 {
        assert(offset >= 0 && offset <= count - 8, "RawBytes: word at \(offset) of \(count)")
        return UInt64(bigEndian: base.unsafelyUnwrapped.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// A little-endian integer of type `T` at `offset` (any alignment).
    @inline(__always)
    func integer<T: FixedWidthInteger>(at offset: Int, as type: T.Type) -> T {
        assert(offset >= 0 && offset <= count - MemoryLayout<T>.size, "RawBytes: \(T.self) at \(offset) of \(count)")
        return T(littleEndian: base.unsafelyUnwrapped.loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    /// The bytes in `range`, as a window of their own.
    @inline(__always)
    func slice(_ range: Range<Int>) -> RawBytes {
        assert(range.lowerBound >= 0 && range.upperBound <= count, "RawBytes: \(range) of \(count)")
        return RawBytes(base: range.isEmpty ? base : base.unsafelyUnwrapped + range.lowerBound, count: range.count)
    }

    /// Whether the bytes in `range` equal `other`'s.
    @inline(__always)
    func equals(_ range: Range<Int>, _ other: RawBytes) -> Bool {
        assert(range.lowerBound >= 0 && range.upperBound <= count, "RawBytes: \(range) of \(count)")
        guard range.count == other.count else { return false }
        guard range.count > 0 else { return true }
        return Platform.compare(base.unsafelyUnwrapped + range.lowerBound, other.base.unsafelyUnwrapped, count: range.count) == 0
    }

    /// Byte order of two windows (negative, zero, positive), the shorter first on a tie; eight
    /// bytes at a time.
    @inline(__always)
    static func compare(_ a: RawBytes, _ b: RawBytes) -> Int {
        let common = min(a.count, b.count)
        var index = 0
        while index + 8 <= common {
            let x = a.bigEndianWord(at: index)
            let y = b.bigEndianWord(at: index)
            if x != y { return x < y ? -1 : 1 }
            index += 8
        }
        while index < common {
            let x = a.byte(at: index)
            let y = b.byte(at: index)
            if x != y { return x < y ? -1 : 1 }
            index += 1
        }
        return a.count - b.count
    }
}

extension Array where Element == UInt8 {
    /// `withUnsafeBytes` for a body that throws only `E` (the standard one rethrows untyped).
    func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try withUnsafeBytes { raw in Result { () throws(E) -> R in try body(raw) } }.get()
    }
}
