/// A read-only view of an entry's bytes that keeps the pack's mapping (or its own buffer) alive.
///
/// For stored entries of a mapped pack, the view points straight into the mapping: nothing is
/// copied until you ask for it with ``makeData()``, `Array(view)` or `String(decoding:as:)`.
/// The view is `Sendable` and stays valid for as long as you hold it, even after the
/// ``Pack`` that returned it is gone.
public struct PackData: Sendable, RandomAccessCollection {
    let storage: ByteStorage
    let start: Int
    /// The number of bytes.
    public let count: Int

    init(storage: ByteStorage, start: Int, count: Int) {
        assert(start >= 0 && count >= 0 && start + count <= storage.count, "PackData: \(start)+\(count) of \(storage.count)")
        self.storage = storage
        self.start = start
        self.count = count
    }

    /// A view of a copy of `bytes`, for content that does not come from a pack (a source folder
    /// before it is packed, bytes made in memory).
    public init<C: Collection<UInt8>>(copying bytes: C) {
        let storage = ByteStorage.copying(bytes)
        self.init(storage: storage, start: 0, count: storage.count)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public subscript(position: Int) -> UInt8 {
        precondition(position >= 0 && position < count, "PackData index out of range")
        return storage.bytes.byte(at: start + position)
    }

    /// Calls `body` with the bytes, without copying them.
    ///
    /// The pointer is valid only inside `body`; do not store it.
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        guard let base = storage.base else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return try withExtendedLifetime(storage) { () throws(E) -> R in
            try body(UnsafeRawBufferPointer(start: base + start, count: count))
        }
    }

    public func withContiguousStorageIfAvailable<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R? {
        try withUnsafeBytes { try body($0.bindMemory(to: UInt8.self)) }
    }

    /// Copies into `buffer` with one `memcpy` (makes `Array(view)` and `Data(view)` fast).
    public func _copyContents(
        initializing buffer: UnsafeMutableBufferPointer<UInt8>
    ) -> (Iterator, UnsafeMutableBufferPointer<UInt8>.Index) {
        let copied = Swift.min(count, buffer.count)
        if copied > 0, let base = storage.base, let target = buffer.baseAddress {
            UnsafeMutableRawPointer(target).copyMemory(from: base + start, byteCount: copied)
        }
        var iterator = makeIterator()
        for _ in 0..<copied { _ = iterator.next() }
        return (iterator, copied)
    }

    /// A sub-range of this view, sharing its storage.
    func slice(_ offset: Int, _ length: Int) -> PackData {
        PackData(storage: storage, start: start + offset, count: length)
    }
}

#if canImport(Foundation)
import Foundation

extension PackData {
    /// The bytes as `Data`, without copying them: the `Data` keeps the pack's mapping (or this
    /// view's buffer) alive for as long as it lives.
    ///
    /// - Important: Like Foundation's own mapped `Data` (`Data(contentsOf:options: .alwaysMapped)`),
    ///   a `Data` over a mapped pack is read-only memory: do not mutate it (the process would
    ///   crash). Use ``makeData()`` for a copy you may change.
    public var data: Data {
        guard count > 0, let base = storage.base else { return Data() }
        let owner = storage
        return Data(
            bytesNoCopy: UnsafeMutableRawPointer(mutating: base + start), count: count,
            deallocator: .custom { _, _ in withExtendedLifetime(owner) {} })
    }

    /// Copies the bytes into a new `Data` value.
    public func makeData() -> Data {
        withUnsafeBytes { Data($0) }
    }
}
#endif
