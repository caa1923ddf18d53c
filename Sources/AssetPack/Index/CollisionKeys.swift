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

/// Two names that cannot both be extracted on a case-insensitive file system.
enum NameClash: Equatable {
    /// Entry `later`'s name equals entry `earlier`'s once case-folded and NFC-normalized.
    case sameKey(earlier: Int, later: Int)
    /// Entry `file`'s name is also a folder of entry `entry`'s (`a` and `a/b`, or `A` and `a/b`).
    case fileIsFolder(file: Int, entry: Int)
}

extension CollisionKeys {
    /// The first clash among `count` names, `name(k)` being entry k's UTF-8 bytes: names in
    /// entry order, then folders. No string per entry for ASCII names.
    static func firstClash(count: Int, name: (Int) -> ArraySlice<UInt8>) -> NameClash? {
        var keys = CollisionKeys(capacity: count)
        for number in 0..<count {
            keys.makeKey(name(number))
            if let other = keys.insert(number) { return .sameKey(earlier: other, later: number) }
        }
        // A folder is checked at the first entry under it: the folders an entry does not share
        // with the one before it, deepest first (entries under one folder are contiguous in byte
        // order; in any other order a folder is only checked more than once).
        var previous: ArraySlice<UInt8> = []
        for number in 0..<count {
            let current = name(number)
            var end = current.endIndex
            while let slash = current[..<end].lastIndex(of: UInt8(ascii: "/")) {
                end = slash
                let length = slash - current.startIndex
                if previous.count > length, previous[previous.startIndex + length] == UInt8(ascii: "/"),
                    previous.prefix(length).elementsEqual(current[..<slash])
                {
                    break
                }
                keys.makeKey(current[..<slash])
                if let file = keys.find() { return .fileIsFolder(file: file, entry: number) }
            }
            previous = current
        }
        return nil
    }
}
