import CAssetPackZlib

/// Where one entry's bytes are: what the table takes and gives back.
struct EntryRecord {
    var pathStart: UInt32
    var pathLength: UInt32
    /// The data's offset; `UInt64.max` until resolved from the local header (foreign zips).
    var dataOffset: UInt64
    /// The local header's offset; `UInt64.max` when unknown (packs opened through their index).
    var localHeaderOffset: UInt64
    var compressedSize: UInt64
    var size: UInt64
    var crc32: UInt32
    var method: UInt16
    var flags: UInt16
}

/// What the table stores per entry: 32 bytes, no heap objects. The fields only foreign zips
/// need (local header offset, compressed size) live in a side array that packs opened through
/// their index leave empty.
struct StoredRecord {
    var dataOffset: UInt64
    var size: UInt64
    var pathStart: UInt32
    var crc32: UInt32
    var pathLength: UInt16
    var method: UInt16
    var flags: UInt16
}

/// All entries of a pack in entry order, their paths in one byte arena, an open-addressing hash
/// table for O(1) lookup by path and a path-sorted order for folder listings.
struct EntryTable: Sendable {
    private(set) var records: [StoredRecord] = []
    /// Local header offset and compressed size per entry, for foreign zips only.
    private var foreign: [(localHeaderOffset: UInt64, compressedSize: UInt64)] = []
    private(set) var paths: [UInt8] = []
    /// Slots hold entry number + 1 in their low ``numberBits`` bits (0 is empty) and the top
    /// bits of the path's hash above them, so a probe that meets another entry almost never has
    /// to read that entry's path. The capacity is a power of two, at least twice the entry
    /// count, so probes stay short.
    private var slots: [UInt32] = []
    private var numberBits = 32
    /// Entry numbers in path-byte order; `nil` when entry order already is path order, or is
    /// path order but for the last entry (a pack's index), which then sits at ``lastPosition``.
    private var sortedOrder: [UInt32]?
    private var lastPosition: Int?

    var count: Int { records.count }

    init(expectedCount: Int, expectedPathBytes: Int) {
        records.reserveCapacity(expectedCount)
        paths.reserveCapacity(expectedPathBytes)
    }

    /// Appends an entry; its entry number is the current count. Paths are at most 65,535 bytes
    /// (the zip limit), the arena at most 4 GiB.
    mutating func append<C: Collection<UInt8>>(path: C, record: EntryRecord) {
        records.append(
            StoredRecord(
                dataOffset: record.dataOffset, size: record.size, pathStart: UInt32(paths.count), crc32: record.crc32,
                pathLength: UInt16(path.count), method: record.method, flags: record.flags))
        paths.append(contentsOf: path)
        if record.localHeaderOffset != .max || record.compressedSize != record.size || !foreign.isEmpty {
            if foreign.isEmpty {
                foreign = records.dropLast().map { (localHeaderOffset: UInt64.max, compressedSize: $0.size) }
            }
            foreign.append((record.localHeaderOffset, record.compressedSize))
        }
    }

    /// Appends a stored entry of a pack's index (the parser's fast path).
    mutating func appendStored(path: UnsafeRawBufferPointer, dataOffset: UInt64, size: UInt64, crc32: UInt32) {
        records.append(
            StoredRecord(
                dataOffset: dataOffset, size: size, pathStart: UInt32(paths.count), crc32: crc32,
                pathLength: UInt16(path.count), method: ZipConstants.methodStored, flags: ZipConstants.flagUTF8))
        paths.append(contentsOf: path)
        if !foreign.isEmpty { foreign.append((.max, size)) }
    }

    /// The most path bytes a table can hold (paths are found by 32-bit offsets).
    static let maxPathBytes = Int(UInt32.max)

    /// The bytes of all paths so far.
    var pathBytesCount: Int { paths.count }

    /// The entry's full record.
    func record(_ number: Int) -> EntryRecord {
        let stored = records[number]
        let extra = foreign.isEmpty ? (UInt64.max, stored.size) : foreign[number]
        return EntryRecord(
            pathStart: stored.pathStart, pathLength: UInt32(stored.pathLength), dataOffset: stored.dataOffset,
            localHeaderOffset: extra.0, compressedSize: extra.1, size: stored.size, crc32: stored.crc32,
            method: stored.method, flags: stored.flags)
    }

    /// Builds the hash table and the sorted order; fails on two entries with the same path.
    mutating func finish() -> (first: Int, second: Int)? {
        var capacity = 16
        while capacity < records.count * 2 { capacity <<= 1 }
        var table = [UInt32](repeating: 0, count: capacity)
        let numberBits = max(1, Int.bitWidth - records.count.leadingZeroBitCount)
        let layout = SlotLayout(numberBits: numberBits)
        var inOrder = true
        let duplicate: (Int, Int)? = records.withUnsafeBufferPointer { records in
            paths.withUnsafeBytes { arena in
                table.withUnsafeMutableBufferPointer { slots in
                    withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 16) { hashes in
                        // In groups of 16: hash, ask for the 16 slots' cache lines, then insert,
                        // so the (random) slot reads overlap instead of waiting one by one.
                        var start = 0
                        var previous = UnsafeRawBufferPointer(start: nil, count: 0)
                        while start < records.count {
                            let end = min(start + 16, records.count)
                            for number in start..<end {
                                let hash = Self.hash(Self.path(number, records, arena))
                                hashes[number &- start] = hash
                                assetpack_prefetch(slots.baseAddress.map { $0 + (Int(truncatingIfNeeded: hash) & (capacity - 1)) })
                            }
                            for number in start..<end {
                                let path = Self.path(number, records, arena)
                                if let other = Self.insert(
                                    number, hash: hashes[number &- start], path: path, layout: layout, slots,
                                    records, arena)
                                {
                                    return (other, number)
                                }
                                if inOrder, number > 0, number < records.count - 1, Self.compare(previous, path) >= 0 {
                                    inOrder = false
                                }
                                previous = path
                            }
                            start = end
                        }
                        return nil
                    }
                }
            }
        }
        if let duplicate { return duplicate }
        slots = table
        self.numberBits = numberBits
        if inOrder, records.count > 1 {
            // Entries 0..<n-1 are in order: place the last one by binary search.
            let last = records.count - 1
            var low = 0
            var high = last
            while low < high {
                let middle = (low + high) / 2
                if pathLess(middle, last) { low = middle + 1 } else { high = middle }
            }
            if low != last { lastPosition = low }
        } else if !inOrder {
            sortedOrder = records.indices.map(UInt32.init).sorted { pathLess(Int($0), Int($1)) }
        }
        return nil
    }

    /// How a slot splits into entry number + 1 (the low ``numberBits``) and hash tag (the rest).
    struct SlotLayout {
        let numberBits: Int
        let numberMask: UInt32
        /// The shift that leaves a hash's top bits as the tag; `nil` when no bits are left.
        let tagShift: UInt64?

        init(numberBits: Int) {
            self.numberBits = numberBits
            numberMask = numberBits >= 32 ? .max : (1 &<< UInt32(numberBits)) &- 1
            tagShift = numberBits >= 32 ? nil : UInt64(32 + numberBits)
        }

        /// The slot bits above the entry number: the hash's top bits.
        @inline(__always)
        func tag(_ hash: UInt64) -> UInt32 {
            guard let tagShift else { return 0 }
            return UInt32(truncatingIfNeeded: hash &>> tagShift) &<< UInt32(numberBits)
        }
    }

    /// Puts `number` into the table; returns the entry that already has its path, if any.
    @inline(__always)
    private static func insert(
        _ number: Int, hash: UInt64, path: UnsafeRawBufferPointer, layout: SlotLayout,
        _ slots: UnsafeMutableBufferPointer<UInt32>, _ records: UnsafeBufferPointer<StoredRecord>,
        _ arena: UnsafeRawBufferPointer
    ) -> Int? {
        let mask = slots.count - 1
        let tag = layout.tag(hash)
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let value = slots[slot]
            if value == 0 {
                slots[slot] = tag | UInt32(truncatingIfNeeded: number &+ 1)
                return nil
            }
            if value & ~layout.numberMask == tag {
                let other = Int(value & layout.numberMask) - 1
                if compare(Self.path(other, records, arena), path) == 0 { return other }
            }
            slot = (slot &+ 1) & mask
        }
    }

    /// The entry number of `path`, if the table has it.
    func lookup(_ path: UnsafeRawBufferPointer) -> Int? {
        guard !slots.isEmpty else { return nil }
        let mask = slots.count - 1
        let hash = Self.hash(path)
        let layout = SlotLayout(numberBits: numberBits)
        let numberMask = layout.numberMask
        let tag = layout.tag(hash)
        var slot = Int(truncatingIfNeeded: hash) & mask
        return slots.withUnsafeBufferPointer { slots in
            records.withUnsafeBufferPointer { records in
                paths.withUnsafeBytes { arena in
                    while true {
                        let value = slots[slot]
                        if value == 0 { return nil }
                        if value & ~numberMask == tag {
                            let number = Int(value & numberMask) - 1
                            let record = records[number]
                            if Int(record.pathLength) == path.count,
                                path.count == 0
                                    || memcmp(arena.baseAddress! + Int(record.pathStart), path.baseAddress!, path.count) == 0
                            {
                                return number
                            }
                        }
                        slot = (slot + 1) & mask
                    }
                }
            }
        }
    }

    private static func path(
        _ number: Int, _ records: UnsafeBufferPointer<StoredRecord>, _ arena: UnsafeRawBufferPointer
    ) -> UnsafeRawBufferPointer {
        let record = records[number]
        return UnsafeRawBufferPointer(rebasing: arena[Int(record.pathStart)..<Int(record.pathStart) + Int(record.pathLength)])
    }

    /// Byte order (negative, zero, positive), the shorter first on a tie; eight bytes at a time.
    @inline(__always)
    private static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let common = min(a.count, b.count)
        if common > 0, let left = a.baseAddress, let right = b.baseAddress {
            var index = 0
            while index + 8 <= common {
                let x = UInt64(bigEndian: left.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                let y = UInt64(bigEndian: right.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                if x != y { return x < y ? -1 : 1 }
                index += 8
            }
            while index < common {
                let x = left.load(fromByteOffset: index, as: UInt8.self)
                let y = right.load(fromByteOffset: index, as: UInt8.self)
                if x != y { return x < y ? -1 : 1 }
                index += 1
            }
        }
        return a.count - b.count
    }

    func range(of number: Int) -> Range<Int> {
        let record = records[number]
        return Int(record.pathStart)..<Int(record.pathStart) + Int(record.pathLength)
    }

    func pathBytes(_ number: Int) -> ArraySlice<UInt8> { paths[range(of: number)] }

    func path(_ number: Int) -> String { String(decoding: pathBytes(number), as: UTF8.self) }

    /// The entry at position `position` of path order.
    func sorted(_ position: Int) -> Int {
        if let sortedOrder { return Int(sortedOrder[position]) }
        guard let lastPosition else { return position }
        return position < lastPosition ? position : position == lastPosition ? records.count - 1 : position - 1
    }

    /// The first position in path order whose path is not less than `prefix`.
    func lowerBound(_ prefix: [UInt8]) -> Int {
        var low = 0
        var high = records.count
        while low < high {
            let middle = (low + high) / 2
            if pathBytes(sorted(middle)).lexicographicallyPrecedes(prefix) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private func pathLess(_ a: Int, _ b: Int) -> Bool { pathBytes(a).lexicographicallyPrecedes(pathBytes(b)) }

    /// A 64-bit hash eight bytes at a time (multiply-xorshift per word, a final avalanche).
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0x243F_6A88_85A3_08D3 ^ (UInt64(bytes.count) &* 0x9E37_79B9_7F4A_7C15)
        guard let base = bytes.baseAddress else { return hash }
        var index = 0
        while index + 8 <= bytes.count {
            let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            hash = (hash ^ word) &* 0x9E37_79B9_7F4A_7C15
            hash ^= hash >> 32
            index += 8
        }
        if index < bytes.count {
            // The last 1 to 7 bytes as a little-endian word: from the last eight bytes shifted
            // down when there are eight, else one by one.
            var word: UInt64 = 0
            if bytes.count >= 8 {
                word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self))
                    &>> UInt64(8 &* (8 &- (bytes.count &- index)))
            } else {
                var shift: UInt64 = 0
                while index < bytes.count {
                    word |= UInt64(base.load(fromByteOffset: index, as: UInt8.self)) << shift
                    shift += 8
                    index += 1
                }
            }
            hash = (hash ^ word) &* 0x9E37_79B9_7F4A_7C15
            hash ^= hash >> 32
        }
        hash ^= hash >> 33
        hash &*= 0xBF58_476D_1CE4_E5B9
        return hash ^ (hash >> 29)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
