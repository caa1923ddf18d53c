/// Owns a block of bytes: a read-only file mapping, or a heap buffer.
///
/// `@unchecked Sendable`: the pointer and count never change after `init`, a mapping is
/// `PROT_READ` and a heap buffer is written only before the storage is shared; `deinit`
/// unmaps or frees only after the last ``PackData`` view referring to it is gone.
final class ByteStorage: @unchecked Sendable {
    enum Kind {
        case mapping
        /// From ``Platform/allocate(byteCount:)`` (C heap: sizes that come from files).
        case heap
        /// From Swift's allocator (bytes handed in by the caller).
        case allocated
    }

    let base: UnsafeRawPointer?
    let count: Int
    private let kind: Kind

    init(base: UnsafeRawPointer?, count: Int, kind: Kind) {
        self.base = base
        self.count = count
        self.kind = kind
    }

    /// The bytes, for loads.
    var bytes: RawBytes { RawBytes(base: base, count: count) }

    /// A heap buffer of `capacity` bytes filled by `fill`, which returns how many bytes it wrote.
    ///
    /// - Throws: ``PackError/Code/tooLarge`` when the memory cannot be had, or what `fill` throws.
    static func heap(
        capacity: Int, _ fill: (UnsafeMutableRawBufferPointer) throws(PackError) -> Int
    ) throws(PackError) -> ByteStorage {
        guard let pointer = Platform.allocate(byteCount: capacity) else {
            throw PackError(.tooLarge, "cannot allocate \(capacity) bytes")
        }
        let written: Int
        do {
            written = try fill(UnsafeMutableRawBufferPointer(start: pointer, count: capacity))
        } catch {
            Platform.deallocate(pointer)
            throw error
        }
        return ByteStorage(base: UnsafeRawPointer(pointer), count: min(written, capacity), kind: .heap)
    }

    /// A copy of `bytes` in memory of its own.
    static func copying<C: Collection<UInt8>>(_ bytes: C) -> ByteStorage {
        let count = bytes.count
        guard count > 0 else { return ByteStorage(base: nil, count: 0, kind: .allocated) }
        let pointer = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 16)
        UnsafeMutableRawBufferPointer(start: pointer, count: count).copyBytes(from: bytes)
        return ByteStorage(base: UnsafeRawPointer(pointer), count: count, kind: .allocated)
    }

    deinit {
        guard let base else { return }
        switch kind {
        case .mapping: Platform.unmap(base, count: count)
        case .heap: Platform.deallocate(UnsafeMutableRawPointer(mutating: base))
        case .allocated: UnsafeMutableRawPointer(mutating: base).deallocate()
        }
    }
}
