import CAssetPackZlib

/// CRC-32 (the zip polynomial), computed by zlib.
struct CRC32 {
    private(set) var value: UInt32 = 0

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard var pointer = bytes.baseAddress?.assumingMemoryBound(to: Bytef.self) else { return }
        var remaining = bytes.count
        var crc = uLong(value)
        while remaining > 0 {
            let chunk = min(remaining, Int(UInt32.max >> 1))
            crc = crc32(crc, pointer, uInt(chunk))
            pointer += chunk
            remaining -= chunk
        }
        value = UInt32(truncatingIfNeeded: crc)
    }

    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }
}
