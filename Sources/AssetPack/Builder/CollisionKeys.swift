/// The builder's collision keys (NFC, then lower case, as ``PackPath/collisionKey(_:)``) in one
/// byte arena with an open-addressing table: no string per entry for ASCII names.
struct CollisionKeys {
    private var arena: [UInt8] = []
    /// Entry k's key is `arena[starts[k]..<starts[k + 1]]`.
    private var starts: [Int] = [0]
    /// Entry number + 1; 0 is empty.
    private var slots: [Int32]
    /// The key being inserted or looked up.
    private var key: [UInt8] = []

    init(capacity: Int) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        slots = [Int32](repeating: 0, count: size)
        starts.reserveCapacity(capacity + 1)
    }

    /// Makes `name`'s key the current one.
    mutating func makeKey(_ name: ArraySlice<UInt8>) {
        key.removeAll(keepingCapacity: true)
        if name.allSatisfy({ $0 < 0x80 }) {
            for byte in name { key.append(byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) }
        } else {
            key.append(contentsOf: PackPath.collisionKey(String(decoding: name, as: UTF8.self)).utf8)
        }
    }

    /// Adds entry `number` (the next one) under the current key; returns the entry already
    /// there, if any.
    mutating func insert(_ number: Int) -> Int? {
        var slot = firstSlot()
        while slots[slot] != 0 {
            let other = Int(slots[slot]) - 1
            if matches(other) { return other }
            slot = (slot + 1) & (slots.count - 1)
        }
        slots[slot] = Int32(number + 1)
        arena.append(contentsOf: key)
        starts.append(arena.count)
        return nil
    }

    /// The entry whose key is the current one.
    func find() -> Int? {
        var slot = firstSlot()
        while slots[slot] != 0 {
            let other = Int(slots[slot]) - 1
            if matches(other) { return other }
            slot = (slot + 1) & (slots.count - 1)
        }
        return nil
    }

    private func firstSlot() -> Int {
        key.withUnsafeBytes { Int(truncatingIfNeeded: PathHash.hash($0)) } & (slots.count - 1)
    }

    private func matches(_ entry: Int) -> Bool { arena[starts[entry]..<starts[entry + 1]].elementsEqual(key) }
}
