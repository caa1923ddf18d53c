import CAssetPackZlib

/// One row of the in-memory index (``EntryTable``): where one entry's bytes are, in 32 bytes
/// with no heap objects. The fields only foreign zips need (local header offset, compressed
/// size) live in a side array of the table that packs opened through their index leave empty.
struct IndexRow {
    /// The data's offset; `UInt64.max` until resolved from the local header (foreign zips).
    var dataOffset: UInt64
    var size: UInt64
    /// Where the path starts in the table's path arena.
    var pathStart: UInt32
    var crc32: UInt32
    var pathLength: UInt16
    var method: UInt16
    var flags: UInt16
}

/// All entries of a pack in entry order, their paths in one byte arena, an open-addressing hash
/// table for O(1) lookup by path and a path-sorted order for folder listings.
///
/// The pack's index in memory: ``IndexParser`` fills it from the JSON index, the reader from
/// the central directory of a zip without one; the reader then only looks things up in it.
struct EntryTable: Sendable {
    private(set) var rows: [IndexRow] = []
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

    var count: Int { rows.count }

    init(expectedCount: Int, expectedPathBytes: Int) {
        rows.reserveCapacity(expectedCount)
        paths.reserveCapacity(expectedPathBytes)
    }

    /// Appends an entry; its entry number is the current count. Paths are at most 65,535 bytes
    /// (the zip limit), the arena at most 4 GiB. `localHeaderOffset` is `UInt64.max` when
    /// unknown (packs opened through their index).
    mutating func append<C: Collection<UInt8>>(
        path: C, dataOffset: UInt64, size: UInt64, crc32: UInt32, method: UInt16, flags: UInt16,
        localHeaderOffset: UInt64 = .max, compressedSize: UInt64? = nil
    ) {
        rows.append(
            IndexRow(
                dataOffset: dataOffset, size: size, pathStart: UInt32(paths.count), crc32: crc32,
                pathLength: UInt16(path.count), method: method, flags: flags))
        paths.append(contentsOf: path)
        let compressedSize = compressedSize ?? size
        if localHeaderOffset != .max || compressedSize != size || !foreign.isEmpty {
            if foreign.isEmpty {
                foreign = rows.dropLast().map { (localHeaderOffset: UInt64.max, compressedSize: $0.size) }
            }
            foreign.append((localHeaderOffset, compressedSize))
        }
    }

    /// Where each entry's SHA-256 (64 hex digits) starts in a format-2 index, for entries
    /// appended with one; read through ``Pack/sha256(entryNumber:)``.
    private(set) var hashPositions: [UInt32] = []

    /// How many entries have a SHA-256 listed.
    var hashedCount: Int { hashPositions.count }

    /// Appends a stored entry of a pack's index (the parser's fast path).
    mutating func appendStored(
        path: RawBytes, dataOffset: UInt64, size: UInt64, crc32: UInt32, hashPosition: UInt32? = nil
    ) {
        if let hashPosition { hashPositions.append(hashPosition) }
        rows.append(
            IndexRow(
                dataOffset: dataOffset, size: size, pathStart: UInt32(paths.count), crc32: crc32,
                pathLength: UInt16(path.count), method: ZipConstants.methodStored, flags: ZipConstants.flagUTF8))
        paths.append(contentsOf: path.buffer)
        if !foreign.isEmpty { foreign.append((.max, size)) }
    }

    /// The most path bytes a table can hold (paths are found by 32-bit offsets).
    static let maxPathBytes = Int(UInt32.max)

    /// The bytes of all paths so far.
    var pathBytesCount: Int { paths.count }

    /// The entry's row.
    func row(_ number: Int) -> IndexRow { rows[number] }

    /// Where the entry's local header starts; `UInt64.max` when unknown (packs opened through
    /// their index).
    func localHeaderOffset(_ number: Int) -> UInt64 { foreign.isEmpty ? .max : foreign[number].localHeaderOffset }

    /// The entry's size as stored (the deflated size of a foreign zip's deflated entry).
    func compressedSize(_ number: Int) -> UInt64 { foreign.isEmpty ? rows[number].size : foreign[number].compressedSize }

    /// Builds the hash table and the sorted order; fails on two entries with the same path.
    mutating func finish() -> (first: Int, second: Int)? {
        var capacity = 16
        while capacity < rows.count * 2 { capacity <<= 1 }
        var table = [UInt32](repeating: 0, count: capacity)
        let numberBits = max(1, Int.bitWidth - rows.count.leadingZeroBitCount)
        let layout = SlotLayout(numberBits: numberBits)
        var inOrder = true
        let duplicate: (Int, Int)? = rows.withUnsafeBufferPointer { rows in
            paths.withUnsafeBytes { arena in
                let arena = RawBytes(arena)
                return table.withUnsafeMutableBufferPointer { slots in
                    withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 16) { hashes in
                        // In groups of 16: hash, ask for the 16 slots' cache lines, then insert,
                        // so the (random) slot reads overlap instead of waiting one by one.
                        var start = 0
                        var previous = RawBytes(base: nil, count: 0)
                        while start < rows.count {
                            let end = min(start + 16, rows.count)
                            for number in start..<end {
                                let hash = PathHash.hash(Self.path(rows[number], arena))
                                hashes[number &- start] = hash
                                assetpack_prefetch(slots.baseAddress.map { $0 + (Int(truncatingIfNeeded: hash) & (capacity - 1)) })
                            }
                            for number in start..<end {
                                let path = Self.path(rows[number], arena)
                                if let other = Self.insert(
                                    number, hash: hashes[number &- start], path: path, layout: layout, slots,
                                    rows, arena)
                                {
                                    return (other, number)
                                }
                                if inOrder, number > 0, number < rows.count - 1, RawBytes.compare(previous, path) >= 0 {
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
        if inOrder, rows.count > 1 {
            // Entries 0..<n-1 are in order: place the last one by binary search.
            let last = rows.count - 1
            var low = 0
            var high = last
            while low < high {
                let middle = (low + high) / 2
                if pathLess(middle, last) { low = middle + 1 } else { high = middle }
            }
            if low != last { lastPosition = low }
        } else if !inOrder {
            sortedOrder = rows.indices.map(UInt32.init).sorted { pathLess(Int($0), Int($1)) }
        }
        #if DEBUG
        checkInvariants()
        #endif
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
        _ number: Int, hash: UInt64, path: RawBytes, layout: SlotLayout,
        _ slots: UnsafeMutableBufferPointer<UInt32>, _ rows: UnsafeBufferPointer<IndexRow>, _ arena: RawBytes
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
                if RawBytes.compare(Self.path(rows[other], arena), path) == 0 { return other }
            }
            slot = (slot &+ 1) & mask
        }
    }

    /// The entry number of `path`, if the table has it.
    func lookup(_ path: UnsafeRawBufferPointer) -> Int? {
        guard !slots.isEmpty else { return nil }
        let path = RawBytes(path)
        let mask = slots.count - 1
        let hash = PathHash.hash(path)
        let layout = SlotLayout(numberBits: numberBits)
        let numberMask = layout.numberMask
        let tag = layout.tag(hash)
        var slot = Int(truncatingIfNeeded: hash) & mask
        return slots.withUnsafeBufferPointer { slots in
            rows.withUnsafeBufferPointer { rows in
                paths.withUnsafeBytes { arena in
                    let arena = RawBytes(arena)
                    while true {
                        let value = slots[slot]
                        if value == 0 { return nil }
                        if value & ~numberMask == tag {
                            let number = Int(value & numberMask) - 1
                            let row = rows[number]
                            let start = Int(row.pathStart)
                            if arena.equals(start..<start + Int(row.pathLength), path) { return number }
                        }
                        slot = (slot + 1) & mask
                    }
                }
            }
        }
    }

    private static func path(_ row: IndexRow, _ arena: RawBytes) -> RawBytes {
        arena.slice(Int(row.pathStart)..<Int(row.pathStart) + Int(row.pathLength))
    }

    func range(of number: Int) -> Range<Int> {
        let row = rows[number]
        return Int(row.pathStart)..<Int(row.pathStart) + Int(row.pathLength)
    }

    func pathBytes(_ number: Int) -> ArraySlice<UInt8> { paths[range(of: number)] }

    func path(_ number: Int) -> String { String(decoding: pathBytes(number), as: UTF8.self) }

    /// The entry at position `position` of path order.
    func sorted(_ position: Int) -> Int {
        if let sortedOrder { return Int(sortedOrder[position]) }
        guard let lastPosition else { return position }
        return position < lastPosition ? position : position == lastPosition ? rows.count - 1 : position - 1
    }

    /// The first position in path order whose path is not less than `prefix`.
    func lowerBound(_ prefix: [UInt8]) -> Int {
        var low = 0
        var high = rows.count
        while low < high {
            let middle = (low + high) / 2
            if pathBytes(sorted(middle)).lexicographicallyPrecedes(prefix) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private func pathLess(_ a: Int, _ b: Int) -> Bool { pathBytes(a).lexicographicallyPrecedes(pathBytes(b)) }

    /// Checks what the lookups and listings rely on: every path inside the arena, every entry
    /// found by its own path, no slot pointing past the rows, path order sorted and complete.
    /// The test build runs it after every table is finished (so after every open).
    func checkInvariants() {
        precondition(foreign.isEmpty || foreign.count == rows.count, "EntryTable: side array out of step")
        precondition(slots.count >= rows.count * 2 || rows.isEmpty, "EntryTable: table too small")
        let layout = SlotLayout(numberBits: numberBits)
        var occupied = 0
        for value in slots where value != 0 {
            occupied += 1
            precondition(Int(value & layout.numberMask) - 1 < rows.count, "EntryTable: slot past the rows")
        }
        precondition(occupied == rows.count, "EntryTable: \(occupied) slots for \(rows.count) entries")
        for number in rows.indices {
            let range = range(of: number)
            precondition(range.upperBound <= paths.count, "EntryTable: path \(number) past the arena")
            let found = paths.withUnsafeBytes { lookup(UnsafeRawBufferPointer(rebasing: $0[range])) }
            precondition(found == number, "EntryTable: entry \(number) is not found by its path")
        }
        var seen = Set<Int>()
        for position in rows.indices {
            precondition(seen.insert(sorted(position)).inserted, "EntryTable: path order repeats an entry")
            if position > 0 {
                precondition(pathLess(sorted(position - 1), sorted(position)), "EntryTable: path order is not sorted")
            }
        }
    }
}
