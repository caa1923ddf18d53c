/// The 64-bit hash of an entry path: eight bytes at a time (multiply-xorshift per word, then a
/// final avalanche). The index's lookup table (``EntryTable``) and the builder's collision check use it;
/// the C reference reader of the benchmark implements the same function.
enum PathHash {
    static func hash(_ bytes: RawBytes) -> UInt64 {
        var hash: UInt64 = 0x243F_6A88_85A3_08D3 ^ (UInt64(bytes.count) &* 0x9E37_79B9_7F4A_7C15)
        var index = 0
        while index + 8 <= bytes.count {
            hash = (hash ^ bytes.word(at: index)) &* 0x9E37_79B9_7F4A_7C15
            hash ^= hash >> 32
            index += 8
        }
        if index < bytes.count {
            // The last 1 to 7 bytes as a little-endian word: from the last eight bytes shifted
            // down when there are eight, else one by one.
            var word: UInt64 = 0
            if bytes.count >= 8 {
                word = bytes.word(at: bytes.count - 8) &>> UInt64(8 &* (8 &- (bytes.count &- index)))
            } else {
                var shift: UInt64 = 0
                while index < bytes.count {
                    word |= UInt64(bytes.byte(at: index)) << shift
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

    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 { hash(RawBytes(bytes)) }
}
