/// SHA-256 (FIPS 180-4), used for the pack's content digest.
package struct SHA256 {
    private var state: [UInt32] = [
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    private static let k: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    mutating func update<C: Collection<UInt8>>(_ bytes: C) {
        if let done = bytes.withContiguousStorageIfAvailable({ update(UnsafeRawBufferPointer($0)) }) { return done }
        Array(bytes).withUnsafeBytes { update($0) }
    }

    /// Compresses whole blocks straight from `bytes`; only a partial block waits in `pending`.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        let input = RawBytes(bytes)
        length &+= UInt64(bytes.count)
        var offset = 0
        if !pending.isEmpty {
            let taken = min(64 - pending.count, bytes.count)
            pending.append(contentsOf: input.slice(0..<taken).buffer)
            offset = taken
            guard pending.count == 64 else { return }
            // (Only `pending` is read and only `state` written: distinct stored properties.)
            pending.withUnsafeBytes { Self.compress(RawBytes($0), into: &state) }
            pending.removeAll(keepingCapacity: true)
        }
        while bytes.count - offset >= 64 {
            Self.compress(input.slice(offset..<offset + 64), into: &state)
            offset += 64
        }
        if offset < bytes.count { pending.append(contentsOf: input.slice(offset..<bytes.count).buffer) }
    }

    mutating func finalize() -> [UInt8] {
        let bitLength = length &* 8
        var tail = pending
        tail.append(0x80)
        while tail.count % 64 != 56 { tail.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
        tail.withUnsafeBytes { raw in
            let bytes = RawBytes(raw)
            var offset = 0
            while offset < bytes.count {
                Self.compress(bytes.slice(offset..<offset + 64), into: &state)
                offset += 64
            }
        }
        pending = []
        return state.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> UInt32(24 - 8 * $0)) } }
    }

    /// One 64-byte block into `state`.
    private static func compress(_ block: RawBytes, into state: inout [UInt32]) {
        assert(block.count == 64)
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            // The message words are big-endian.
            for i in 0..<16 { w[i] = block.integer(at: 4 * i, as: UInt32.self).byteSwapped }
            for i in 16..<64 {
                let s0 = Self.rotr(w[i - 15], 7) ^ Self.rotr(w[i - 15], 18) ^ (w[i - 15] >> 3)
                let s1 = Self.rotr(w[i - 2], 17) ^ Self.rotr(w[i - 2], 19) ^ (w[i - 2] >> 10)
                w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
            }
            state.withUnsafeMutableBufferPointer { state in
                SHA256.k.withUnsafeBufferPointer { k in
                    var (a, b, c, d, e, f, g, h) = (state[0], state[1], state[2], state[3], state[4], state[5], state[6], state[7])
                    for i in 0..<64 {
                        let s1 = Self.rotr(e, 6) ^ Self.rotr(e, 11) ^ Self.rotr(e, 25)
                        let choice = (e & f) ^ (~e & g)
                        let t1 = h &+ s1 &+ choice &+ k[i] &+ w[i]
                        let s0 = Self.rotr(a, 2) ^ Self.rotr(a, 13) ^ Self.rotr(a, 22)
                        let majority = (a & b) ^ (a & c) ^ (b & c)
                        let t2 = s0 &+ majority
                        (h, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
                    }
                    state[0] &+= a
                    state[1] &+= b
                    state[2] &+= c
                    state[3] &+= d
                    state[4] &+= e
                    state[5] &+= f
                    state[6] &+= g
                    state[7] &+= h
                }
            }
        }
    }

    @inline(__always)
    private static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }

    /// The SHA-256 of `bytes` in lowercase hex, for the package's tools (content-addressed
    /// file names).
    package static func hexDigest<C: Collection<UInt8>>(of bytes: C) -> String {
        var hasher = SHA256()
        hasher.update(bytes)
        return hex(hasher.finalize())
    }

    static func hex(_ digest: [UInt8]) -> String {
        digest.map { byte in
            let digits = String(byte, radix: 16)
            return byte < 16 ? "0" + digits : digits
        }.joined()
    }
}
