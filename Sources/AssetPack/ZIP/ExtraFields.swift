/// Extra field blocks: `u16 id, u16 size, data`.
enum ExtraFields {
    struct Malformed: Error {
        var detail: String
    }

    /// Calls `body` with each block; trailing zero bytes (old zipalign padding) are accepted.
    static func forEach(
        _ extra: UnsafeRawBufferPointer, _ body: (UInt16, UnsafeRawBufferPointer) throws(Malformed) -> Void
    ) throws(Malformed) {
        var reader = ByteReader(extra)
        while reader.remaining > 0 {
            if reader.remaining < 4 {
                guard reader.take(reader.remaining)?.allSatisfy({ $0 == 0 }) == true else {
                    throw Malformed(detail: "malformed extra field: \(reader.remaining) stray bytes")
                }
                return
            }
            let start = reader.position
            guard let id = reader.u16(), let size = reader.u16() else { return }
            guard let data = reader.take(Int(size)) else {
                if reader.bytes.slice(start..<reader.bytes.count).buffer.allSatisfy({ $0 == 0 }) { return }
                throw Malformed(detail: "malformed extra field: block 0x\(hex16(id)) of \(size) bytes runs past the end")
            }
            try body(id, data)
        }
    }

    /// Replaces the marked fields by the values of a Zip64 extra block, in APPNOTE order.
    static func applyZip64(
        _ extra: UnsafeRawBufferPointer, size: inout UInt64, compressedSize: inout UInt64,
        localHeaderOffset: inout UInt64, disk: inout UInt32, sizeMarked: Bool, compressedMarked: Bool,
        offsetMarked: Bool, diskMarked: Bool
    ) throws(Malformed) {
        var applied = false
        try forEach(extra) { (id, data) throws(Malformed) in
            guard id == ZipConstants.zip64ExtraID, !applied else { return }
            applied = true
            var reader = ByteReader(data)
            func next() throws(Malformed) -> UInt64 {
                guard let value = reader.u64() else { throw Malformed(detail: "Zip64 extra field is too short") }
                return value
            }
            if sizeMarked { size = try next() }
            if compressedMarked { compressedSize = try next() }
            if offsetMarked { localHeaderOffset = try next() }
            if diskMarked {
                guard let value = reader.u32() else { throw Malformed(detail: "Zip64 extra field is too short") }
                disk = value
            }
        }
    }

    /// The alignment in a 0xD935 block, if there is a well-formed one.
    static func alignment(in extra: UnsafeRawBufferPointer) -> UInt16? {
        var result: UInt16?
        try? forEach(extra) { id, data in
            if id == ZipConstants.alignmentExtraID, data.count >= 2 {
                result = RawBytes(data).integer(at: 0, as: UInt16.self)
            }
        }
        return result
    }
}

