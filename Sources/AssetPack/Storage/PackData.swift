/// A read-only view of an entry's bytes that keeps the pack's mapping (or its own buffer) alive.
///
/// For stored entries of a mapped pack, the view points straight into the mapping: nothing is
/// copied until you ask for it with ``makeData()``, `Array(view)` or `String(decoding:as:)`;
/// ``data`` gives a `Data` over the same bytes, still without copying. The view is `Sendable`
/// and stays valid for as long as you hold it, even after the ``Pack`` that returned it is gone.
///
/// A view is a random-access collection of bytes and its own slice type: `view[4..<8]` is a
/// `PackData` too, sharing the bytes and, as with `ArraySlice` and `Data`, the indices of the
/// view it was cut from (a view returned by a pack starts at index 0).
public struct PackData: Sendable, RandomAccessCollection {
    let storage: ByteStorage
    /// Where index 0 would be in the storage.
    let origin: Int
    /// The first index.
    public let startIndex: Int
    /// One past the last index.
    public let endIndex: Int

    /// A view of `count` bytes of `storage` from storage offset `start`, indexed from 0.
    init(storage: ByteStorage, start: Int, count: Int) {
        self.init(storage: storage, origin: start, bounds: 0..<count)
    }

    private init(storage: ByteStorage, origin: Int, bounds: Range<Int>) {
        assert(
            bounds.lowerBound >= 0 && origin + bounds.upperBound <= storage.count,
            "PackData: \(bounds) at \(origin) of \(storage.count)")
        self.storage = storage
        self.origin = origin
        startIndex = bounds.lowerBound
        endIndex = bounds.upperBound
    }

    /// A view of a copy of `bytes`, for content that does not come from a pack (a source folder
    /// before it is packed, bytes made in memory).
    public init<C: Collection<UInt8>>(copying bytes: C) {
        let storage = ByteStorage.copying(bytes)
        self.init(storage: storage, start: 0, count: storage.count)
    }

    /// The number of bytes.
    public var count: Int { endIndex - startIndex }

    /// The byte at `position`.
    public subscript(position: Int) -> UInt8 {
        precondition(position >= startIndex && position < endIndex, "PackData index out of range")
        return storage.bytes.byte(at: origin + position)
    }

    /// The bytes in `bounds`, as a view sharing these bytes and these indices.
    public subscript(bounds: Range<Int>) -> PackData {
        precondition(bounds.lowerBound >= startIndex && bounds.upperBound <= endIndex, "PackData range out of range")
        return PackData(storage: storage, origin: origin, bounds: bounds)
    }

    /// Iterates over the bytes.
    public struct Iterator: IteratorProtocol, Sendable {
        let data: PackData
        var position: Int

        public mutating func next() -> UInt8? {
            guard position < data.endIndex else { return nil }
            defer { position += 1 }
            return data[position]
        }
    }

    public func makeIterator() -> Iterator { Iterator(data: self, position: startIndex) }

    /// Calls `body` with the bytes, without copying them.
    ///
    /// The pointer is valid only inside `body`; do not store it.
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        guard let base = storage.base else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return try withExtendedLifetime(storage) { () throws(E) -> R in
            try body(UnsafeRawBufferPointer(start: base + origin + startIndex, count: count))
        }
    }

    public func withContiguousStorageIfAvailable<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R? {
        try withUnsafeBytes { try body($0.bindMemory(to: UInt8.self)) }
    }

    /// Copies into `buffer` with one `memcpy` (makes `Array(view)` and `[UInt8](view)` fast).
    public func _copyContents(
        initializing buffer: UnsafeMutableBufferPointer<UInt8>
    ) -> (Iterator, UnsafeMutableBufferPointer<UInt8>.Index) {
        let copied = Swift.min(count, buffer.count)
        if copied > 0, let base = storage.base, let target = buffer.baseAddress {
            UnsafeMutableRawPointer(target).copyMemory(from: base + origin + startIndex, byteCount: copied)
        }
        return (Iterator(data: self, position: startIndex + copied), copied)
    }
}

#if canImport(Foundation)
import Foundation

extension PackData: ContiguousBytes {
    /// The bytes as `Data`, without copying them: the `Data` keeps the pack's mapping (or this
    /// view's buffer) alive for as long as it lives. Its indices start at 0.
    ///
    /// - Important: Like Foundation's own mapped `Data` (`Data(contentsOf:options: .alwaysMapped)`),
    ///   a `Data` over a mapped pack is read-only memory: do not mutate it (the process would
    ///   crash). Use ``makeData()`` for a copy you may change.
    public var data: Data {
        guard count > 0, let base = storage.base else { return Data() }
        let owner = storage
        return Data(
            bytesNoCopy: UnsafeMutableRawPointer(mutating: base + origin + startIndex), count: count,
            deallocator: .custom { _, _ in withExtendedLifetime(owner) {} })
    }

    /// Copies the bytes into a new `Data` value.
    public func makeData() -> Data {
        withUnsafeBytes { Data($0) }
    }
}
#endif
