#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Owns a block of bytes: a read-only file mapping, or a heap buffer.
///
/// `@unchecked Sendable`: the pointer and count never change after `init`, a mapping is
/// `PROT_READ` and a heap buffer is written only before the storage is shared; `deinit`
/// unmaps or frees only after the last ``PackData`` view referring to it is gone.
final class ByteStorage: @unchecked Sendable {
    enum Kind {
        case mapping
        case heap
    }

    let base: UnsafeRawPointer?
    let count: Int
    private let kind: Kind

    init(base: UnsafeRawPointer?, count: Int, kind: Kind) {
        self.base = base
        self.count = count
        self.kind = kind
    }

    /// A heap buffer of `capacity` bytes filled by `fill`, which returns how many bytes it wrote.
    ///
    /// - Throws: ``PackError/Code/tooLarge`` when the memory cannot be had, or what `fill` throws.
    static func heap(
        capacity: Int, _ fill: (UnsafeMutableRawBufferPointer) throws(PackError) -> Int
    ) throws(PackError) -> ByteStorage {
        guard let pointer = malloc(max(capacity, 1)) else {
            throw PackError(.tooLarge, "cannot allocate \(capacity) bytes")
        }
        let buffer = UnsafeMutableRawBufferPointer(start: pointer, count: capacity)
        let written: Int
        do {
            written = try fill(buffer)
        } catch {
            free(pointer)
            throw error
        }
        return ByteStorage(base: UnsafeRawPointer(pointer), count: min(written, capacity), kind: .heap)
    }

    deinit {
        guard let base else { return }
        switch kind {
        case .mapping: munmap(UnsafeMutableRawPointer(mutating: base), count)
        case .heap: free(UnsafeMutableRawPointer(mutating: base))
        }
    }
}

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
        self.storage = storage
        self.start = start
        self.count = count
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public subscript(position: Int) -> UInt8 {
        precondition(position >= 0 && position < count, "PackData index out of range")
        return storage.base!.load(fromByteOffset: start + position, as: UInt8.self)
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
    /// Copies the bytes into a new `Data` value.
    public func makeData() -> Data {
        withUnsafeBytes { Data($0) }
    }
}
#endif
