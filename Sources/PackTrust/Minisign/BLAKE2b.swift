/// BLAKE2b (RFC 7693), unkeyed, with a digest of 1 to 64 bytes: what minisign's prehashed
/// signatures sign (BLAKE2b-512 of the file) and its secret-key checksum (BLAKE2b-256).
/// swift-crypto has no BLAKE2b; this is the project's only copy, held to RFC 7693's vectors and
/// to Python's `hashlib.blake2b`.
public struct BLAKE2b: Sendable {
    private static let iv: [UInt64] = [
        0x6a09_e667_f3bc_c908, 0xbb67_ae85_84ca_a73b, 0x3c6e_f372_fe94_f82b, 0xa54f_f53a_5f1d_36f1,
        0x510e_527f_ade6_82d1, 0x9b05_688c_2b3e_6c1f, 0x1f83_d9ab_fb41_bd6b, 0x5be0_cd19_137e_2179,
    ]

    /// The message-word order of each of the twelve rounds (rounds 10 and 11 repeat 0 and 1).
    private static let sigma: [[Int]] = [
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
        [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
        [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
        [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
        [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
        [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
        [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
        [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
        [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
        [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
    ]

    private var h: [UInt64]
    /// Bytes not yet compressed: up to one block. The last block is compressed only at the end,
    /// with the final flag.
    private var buffer: [UInt8] = []
    /// The message length so far (128 bits in the RFC; 2^64 bytes are out of reach).
    private var length: UInt64 = 0
    /// The digest's length in bytes.
    public let digestLength: Int

    /// A hash with a digest of `digestLength` bytes (1–64; 64 is BLAKE2b-512).
    public init(digestLength: Int = 64) {
        precondition((1...64).contains(digestLength), "BLAKE2b digests are 1 to 64 bytes")
        self.digestLength = digestLength
        h = Self.iv
        // Parameter block: digest length, key length 0, fanout 1, depth 1.
        h[0] ^= 0x0101_0000 ^ UInt64(digestLength)
        buffer.reserveCapacity(128)
    }

    /// Adds bytes to the message.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < bytes.count {
            if buffer.count == 128 {
                length &+= 128
                buffer.withUnsafeBytes { compress($0, final: false) }
                buffer.removeAll(keepingCapacity: true)
            }
            // Whole blocks straight from the input, when nothing waits and more follows.
            if buffer.isEmpty {
                while bytes.count - offset > 128 {
                    length &+= 128
                    compress(UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + 128]), final: false)
                    offset += 128
                }
            }
            let take = min(128 - buffer.count, bytes.count - offset)
            buffer.append(contentsOf: bytes[offset..<offset + take])
            offset += take
        }
    }

    /// Adds bytes to the message.
    public mutating func update<C: Collection<UInt8>>(_ bytes: C) {
        if bytes.withContiguousStorageIfAvailable({ update(UnsafeRawBufferPointer($0)) }) != nil { return }
        Array(bytes).withUnsafeBytes { update($0) }
    }

    /// The digest of everything added.
    public func finalize() -> [UInt8] {
        var copy = self
        copy.length &+= UInt64(copy.buffer.count)
        let last = copy.buffer + [UInt8](repeating: 0, count: 128 - copy.buffer.count)
        last.withUnsafeBytes { copy.compress($0, final: true) }
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for word in copy.h {
            for byte in 0..<8 { out.append(UInt8(truncatingIfNeeded: word >> (8 * UInt64(byte)))) }
        }
        return Array(out.prefix(digestLength))
    }

    /// The BLAKE2b digest of `bytes`.
    public static func hash<C: Collection<UInt8>>(_ bytes: C, digestLength: Int = 64) -> [UInt8] {
        var hasher = BLAKE2b(digestLength: digestLength)
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// The compression function F on one 128-byte block.
    private mutating func compress(_ block: UnsafeRawBufferPointer, final: Bool) {
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 32) { scratch in
            // m: the block's sixteen words; v: the working vector.
            let m = UnsafeMutableBufferPointer(rebasing: scratch[0..<16])
            let v = UnsafeMutableBufferPointer(rebasing: scratch[16..<32])
            for index in 0..<16 {
                m[index] = UInt64(littleEndian: block.loadUnaligned(fromByteOffset: index &* 8, as: UInt64.self))
            }
            for index in 0..<8 {
                v[index] = h[index]
                v[index &+ 8] = Self.iv[index]
            }
            v[12] ^= length
            if final { v[14] = ~v[14] }
            @inline(__always)
            func mix(_ a: Int, _ b: Int, _ c: Int, _ d: Int, _ x: UInt64, _ y: UInt64) {
                v[a] = v[a] &+ v[b] &+ x
                v[d] = (v[d] ^ v[a]).rotatedRight(32)
                v[c] = v[c] &+ v[d]
                v[b] = (v[b] ^ v[c]).rotatedRight(24)
                v[a] = v[a] &+ v[b] &+ y
                v[d] = (v[d] ^ v[a]).rotatedRight(16)
                v[c] = v[c] &+ v[d]
                v[b] = (v[b] ^ v[c]).rotatedRight(63)
            }
            Self.sigma.withUnsafeBufferPointer { sigma in
                for round in 0..<12 {
                    let s = sigma[round % 10]
                    mix(0, 4, 8, 12, m[s[0]], m[s[1]])
                    mix(1, 5, 9, 13, m[s[2]], m[s[3]])
                    mix(2, 6, 10, 14, m[s[4]], m[s[5]])
                    mix(3, 7, 11, 15, m[s[6]], m[s[7]])
                    mix(0, 5, 10, 15, m[s[8]], m[s[9]])
                    mix(1, 6, 11, 12, m[s[10]], m[s[11]])
                    mix(2, 7, 8, 13, m[s[12]], m[s[13]])
                    mix(3, 4, 9, 14, m[s[14]], m[s[15]])
                }
            }
            for index in 0..<8 { h[index] ^= v[index] ^ v[index &+ 8] }
        }
    }
}

extension UInt64 {
    @inline(__always)
    fileprivate func rotatedRight(_ count: UInt64) -> UInt64 { (self >> count) | (self << (64 - count)) }
}
