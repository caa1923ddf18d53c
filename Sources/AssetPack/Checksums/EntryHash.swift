import Crypto

/// A SHA-256 hash: of one entry's bytes in a format-2 pack's index, of a whole pack file in a
/// catalog. Thirty-two bytes held inline, so a set of them (the entries a client already has)
/// costs no allocation per hash. Hashing is swift-crypto's `SHA256`: CryptoKit on Apple
/// platforms, BoringSSL elsewhere.
public struct EntryHash: Hashable, Sendable, CustomStringConvertible {
    /// The hash's bytes as four big-endian words, in order.
    private var words: (UInt64, UInt64, UInt64, UInt64)

    /// The hash whose 32 bytes these are; `nil` for any other count.
    public init?<C: Collection<UInt8>>(bytes: C) {
        guard bytes.count == 32 else { return nil }
        if let hash = bytes.withContiguousStorageIfAvailable({ Self(raw: UnsafeRawBufferPointer($0)) }) {
            self = hash
            return
        }
        self = Array(bytes).withUnsafeBytes { Self(raw: $0) }
    }

    /// From 32 bytes in memory: four big-endian words.
    init(raw: UnsafeRawBufferPointer) {
        func word(_ index: Int) -> UInt64 { UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self)) }
        words = (word(0), word(1), word(2), word(3))
    }

    /// The hash written as 64 lowercase hex digits (as `sha256sum` prints it); `nil` otherwise.
    public init?(hex: some StringProtocol) {
        let digits = Array(hex.utf8)
        guard digits.count == 64 else { return nil }
        guard let hash = digits.withUnsafeBytes({ Self(hexDigits: $0) }) else { return nil }
        self = hash
    }

    /// 64 lowercase hex digits at the start of `digits`; `nil` if any is not one.
    init?(hexDigits digits: UnsafeRawBufferPointer) {
        guard digits.count >= 64, let base = digits.baseAddress else { return nil }
        /// Eight digits from `offset`, eight bytes at a time without a branch per byte (a
        /// format-2 index holds 64 per entry): each byte checked to be `0`–`9` or `a`–`f` by
        /// adding constants that carry into its high bit at the range's ends (no byte is above
        /// 0x7F, so nothing carries into the next byte), then turned into its nibble.
        func eight(_ offset: Int) -> UInt64? {
            let bytes = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            let ones: UInt64 = 0x0101_0101_0101_0101
            let high = ones &* 0x80
            guard bytes & high == 0 else { return nil }
            let isDigit = (bytes &+ ones &* 0x50) & ~(bytes &+ ones &* 0x46)  // ≥ "0", not ≥ ":"
            let isLetter = (bytes &+ ones &* 0x1F) & ~(bytes &+ ones &* 0x19)  // ≥ "a", not ≥ "g"
            guard (isDigit | isLetter) & high == high else { return nil }
            let nibbles = (bytes & (ones &* 0x0F)) &+ ((bytes >> 6) & ones) &* 9
            var value: UInt64 = 0
            for index in 0..<8 { value = value << 4 | (nibbles >> (8 * index)) & 0x0F }
            return value
        }
        guard let a0 = eight(0), let a1 = eight(8), let b0 = eight(16), let b1 = eight(24), let c0 = eight(32),
            let c1 = eight(40), let d0 = eight(48), let d1 = eight(56)
        else { return nil }
        words = (a0 << 32 | a1, b0 << 32 | b1, c0 << 32 | c1, d0 << 32 | d1)
    }

    /// The SHA-256 of `bytes`.
    public static func of(_ bytes: UnsafeRawBufferPointer) -> EntryHash {
        var hasher = Hasher()
        hasher.update(bytes)
        return hasher.finish()
    }

    /// The SHA-256 of `bytes`.
    public static func of<C: Collection<UInt8>>(_ bytes: C) -> EntryHash {
        var hasher = Hasher()
        hasher.update(bytes)
        return hasher.finish()
    }

    /// The 32 bytes.
    public var bytes: [UInt8] {
        [words.0, words.1, words.2, words.3].flatMap { word in (0..<8).map { UInt8(truncatingIfNeeded: word >> (56 - 8 * $0)) } }
    }

    /// 64 lowercase hex digits.
    public var hex: String { withHexDigits { String(decoding: $0, as: UTF8.self) } }

    /// Calls `body` with the 64 lowercase hex digits, written into a buffer on the stack (the
    /// index writer and the digest take them without a String per entry).
    func withHexDigits<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buffer in
            for index in 0..<4 {
                var value: UInt64
                switch index {
                case 0: value = words.0
                case 1: value = words.1
                case 2: value = words.2
                default: value = words.3
                }
                for position in stride(from: index * 16 + 15, through: index * 16, by: -1) {
                    let nibble = UInt8(truncatingIfNeeded: value & 15)
                    buffer[position] = nibble < 10 ? 0x30 &+ nibble : 0x57 &+ nibble
                    value >>= 4
                }
            }
            return body(UnsafeRawBufferPointer(buffer))
        }
    }

    /// ``hex``.
    public var description: String { hex }

    /// The same 32 bytes.
    public static func == (a: EntryHash, b: EntryHash) -> Bool {
        a.words.0 == b.words.0 && a.words.1 == b.words.1 && a.words.2 == b.words.2 && a.words.3 == b.words.3
    }

    /// Hashes the 32 bytes.
    public func hash(into hasher: inout Swift.Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }

    /// SHA-256 over bytes given in parts.
    public struct Hasher {
        private var state = Crypto.SHA256()

        /// A hasher with nothing added.
        public init() {}

        /// Adds bytes.
        public mutating func update(_ bytes: UnsafeRawBufferPointer) { state.update(bufferPointer: bytes) }

        /// Adds bytes.
        public mutating func update<C: Collection<UInt8>>(_ bytes: C) {
            if bytes.withContiguousStorageIfAvailable({ state.update(bufferPointer: UnsafeRawBufferPointer($0)) }) != nil {
                return
            }
            Array(bytes).withUnsafeBytes { state.update(bufferPointer: $0) }
        }

        /// The SHA-256 of everything added.
        public func finish() -> EntryHash {
            let digest = state.finalize()
            return digest.withUnsafeBytes { EntryHash(raw: $0) }
        }
    }

    private init(words: (UInt64, UInt64, UInt64, UInt64)) { self.words = words }
}
