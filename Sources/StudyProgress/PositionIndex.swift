import Foundation

/// Each item's place in the content, looked up by its key's tag (what an item row stores in its
/// `position` column) or by the UTF-8 bytes of its id and direction.
///
/// Places stored in the rows would have to be rewritten, row by row, whenever the content changes
/// (1.7 s for 100,000 items); a row stores its key's tag instead, which a content update never
/// makes wrong, and this index, built once with the material, turns a tag into a place. The tag
/// carries the place the item had when its row was written, as a hint: while the content has not
/// moved it (the usual case), one look at a small array confirms it; otherwise one probe of a
/// table finds the place. Rows written before tags (their `position` is a place, or NULL) are
/// looked up by the bytes of their id and direction, hashed where SQLite holds them. The first
/// item with a given id and direction wins.
struct PositionIndex: Sendable {
    /// The stored tag of a key: bit 62 set and bit 63 clear (so it is never a place, which is
    /// below 2^62, and never negative), then 38 bits of the key's FNV-1a hash over
    /// `id 0x1F direction`, then 24 bits for the place hint (the place plus one; 0 for none).
    static func tag(of key: ItemKey, place: Int? = nil) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.item.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        hash = (hash ^ 0x1F) &* 0x0000_0100_0000_01B3
        for byte in key.direction.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        let hint = place.map { $0 >= 0 && $0 < Self.hintLimit - 1 ? UInt64($0 + 1) : 0 } ?? 0
        return Int64(bitPattern: 1 << 62 | keyHash(hash) << 24 | hint)
    }

    /// The 38 bits of a key's hash a tag keeps.
    private static func keyHash(_ hash: UInt64) -> UInt64 { hash >> 26 }

    /// Places from here on are not hinted (24 bits: 16,777,214 places are).
    private static let hintLimit = 1 << 24

    /// The flag beside a key hash in ``hinted``: the hint may be trusted.
    private static let trusted: UInt64 = 1 << 38

    /// Whether a stored `position` value is a tag (rather than a place written by an older version).
    static func isTag(_ value: Int64) -> Bool { value >= 1 << 62 }

    /// The key hash part of a stored tag.
    @inline(__always)
    private static func keyHash(ofTag tag: Int64) -> UInt64 { UInt64(bitPattern: tag) >> 24 & (trusted - 1) }

    /// For each key number: its key hash, with ``trusted`` set when the hint may be trusted (it
    /// is the first item with its key, and no other key shares its hash).
    private var hinted: [UInt64] = []
    /// The key hash of each key number.
    private var tags: [UInt64] = []
    /// Open addressing by tag: each slot's tag beside its key number (one cache line per probe),
    /// number −1 for an empty slot, −2 where two keys share a tag (those are looked up by their bytes).
    private var tagSlots: [(tag: UInt64, number: Int32)]
    /// Every key's bytes, `id 0x1F direction`, one after another.
    private var bytes: [UInt8] = []
    /// Where key n starts in ``bytes``; one more entry than there are keys.
    private var starts: [Int] = [0]
    /// Open addressing: the key number in each slot, −1 for an empty slot.
    private var slots: [Int32]
    private let mask: Int

    /// The index of `keys`, in order.
    init(_ keys: some Collection<ItemKey>) {
        var capacity = 16
        while capacity < keys.count * 2 { capacity *= 2 }
        slots = Array(repeating: -1, count: capacity)
        tagSlots = Array(repeating: (0, -1), count: capacity)
        mask = capacity - 1
        bytes.reserveCapacity(keys.count * 8)
        starts.reserveCapacity(keys.count + 1)
        for key in keys {
            let start = bytes.count
            bytes.append(contentsOf: key.item.utf8)
            bytes.append(0x1F)
            bytes.append(contentsOf: key.direction.utf8)
            let number = starts.count - 1
            starts.append(bytes.count)
            let found = bytes.withUnsafeBytes { all in
                let own = UnsafeRawBufferPointer(rebasing: all[start...])
                return slot(item: own, direction: UnsafeRawBufferPointer(start: nil, count: 0), whole: true)
            }
            if slots[found] < 0 { slots[found] = Int32(truncatingIfNeeded: number) }
            tags.append(Self.keyHash(ofTag: Self.tag(of: key)))
        }
        var first = [Bool](repeating: false, count: tags.count)
        for number in tags.indices where slots[bytes.withUnsafeBytes { all in
            slot(item: UnsafeRawBufferPointer(rebasing: all[starts[number]..<starts[number + 1]]), direction: UnsafeRawBufferPointer(start: nil, count: 0), whole: true)
        }] == Int32(truncatingIfNeeded: number) {
            first[number] = true
            // Only the first item with a key is placed; its tag goes in once.
            var index = tagSlot(tags[number])
            while tagSlots[index].number >= 0 && tagSlots[index].tag != tags[number] { index = (index + 1) & mask }
            if tagSlots[index].number == -1 {
                tagSlots[index] = (tags[number], Int32(truncatingIfNeeded: number))
            } else if tagSlots[index].number >= 0 {
                tagSlots[index].number = -2
            }
        }
        hinted = tags.indices.map { number in
            let trusted = first[number] && position(keyHash: tags[number]) == .some(.some(number))
            return tags[number] | (trusted ? Self.trusted : 0)
        }
    }

    /// Where probing for a key hash starts.
    private func tagSlot(_ tag: UInt64) -> Int {
        let mixed = tag &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: mixed >> 32) & mask
    }

    /// The place of the item whose key has the stored `tag`: `.some(nil)` when the content has
    /// no such key, `nil` when the tag alone cannot say (two keys share its hash).
    @inline(__always)
    func position(tag: Int64) -> Int?? {
        let keyHash = Self.keyHash(ofTag: tag)
        let hint = Int(truncatingIfNeeded: tag & Int64(Self.hintLimit - 1)) - 1
        if hint >= 0, hint < hinted.count, hinted[hint] == keyHash | Self.trusted { return .some(hint) }
        return position(keyHash: keyHash)
    }

    /// The place of the item whose key hash is `tag`, by probing the table.
    private func position(keyHash tag: UInt64) -> Int?? {
        var index = tagSlot(tag)
        while true {
            let slot = tagSlots[index]
            let number = Int(slot.number)
            if number == -1 { return .some(nil) }
            if number >= 0 && slot.tag == tag { return .some(number) }
            if number == -2 { return nil }
            index = (index + 1) & mask
        }
    }

    /// The place of the item with this id and direction, if the content has it.
    func position(of key: ItemKey) -> Int? {
        var item = key.item
        var direction = key.direction
        return item.withUTF8 { item in
            direction.withUTF8 { direction in position(item: UnsafeRawBufferPointer(item), direction: UnsafeRawBufferPointer(direction)) }
        }
    }

    /// The place of the item whose id and direction are these UTF-8 bytes, if the content has it.
    func position(item: UnsafeRawBufferPointer, direction: UnsafeRawBufferPointer) -> Int? {
        let number = slots[slot(item: item, direction: direction, whole: false)]
        return number < 0 ? nil : Int(number)
    }

    /// Whether the bytes at `stored` begin with `bytes`.
    @inline(__always)
    private static func equal(_ stored: UnsafeRawPointer, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let other = bytes.baseAddress, bytes.count > 0 else { return true }
        return memcmp(stored, other, bytes.count) == 0
    }

    /// The slot holding the key (or the empty slot where it would go). With `whole`, `item` is a
    /// whole stored key, separator and direction included.
    private func slot(item: UnsafeRawBufferPointer, direction: UnsafeRawBufferPointer, whole: Bool) -> Int {
        // FNV-1a over id, separator, direction.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in item { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        if !whole {
            hash = (hash ^ 0x1F) &* 0x0000_0100_0000_01B3
            for byte in direction { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        }
        let length = whole ? item.count : item.count + 1 + direction.count
        var index = Int(truncatingIfNeeded: hash ^ (hash >> 29)) & mask
        return bytes.withUnsafeBytes { stored in
            while true {
                let number = Int(slots[index])
                if number < 0 { return index }
                let start = starts[number]
                if starts[number + 1] - start == length, let base = stored.baseAddress {
                    let candidate = base + start
                    let same = whole
                        ? Self.equal(candidate, item)
                        : Self.equal(candidate, item) && candidate.load(fromByteOffset: item.count, as: UInt8.self) == 0x1F
                            && Self.equal(candidate + item.count + 1, direction)
                    if same { return index }
                }
                index = (index + 1) & mask
            }
        }
    }
}
