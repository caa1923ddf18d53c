import CAssetPackZlib

/// Inflates raw deflate data (method 8) with zlib into an owned buffer.
enum Inflater {
    /// The most a deflate stream can expand: 1032:1 (RFC 1951 block limits), plus slack.
    static func maximumSize(compressed: UInt64) -> UInt64 {
        compressed.multipliedReportingOverflow(by: 1032).partialValue &+ 1024
    }

    /// Inflates `compressed` to exactly `size` bytes and checks their CRC-32.
    ///
    /// Never allocates from a declared size that the compressed bytes cannot produce, and never
    /// writes past `size`.
    static func inflate(_ compressed: PackData, size: UInt64, crc32 expected: UInt32) throws(PackError) -> PackData {
        guard size <= maximumSize(compressed: UInt64(compressed.count)), size <= UInt64(Int.max) else {
            throw PackError(
                .sizeMismatch, "declared size \(size) is impossible for \(compressed.count) deflated bytes")
        }
        let capacity = Int(size)
        let storage = try compressed.withUnsafeBytes { (input) throws(PackError) -> ByteStorage in
            try ByteStorage.heap(capacity: capacity) { (output) throws(PackError) -> Int in
                var stream = z_stream()
                guard inflateInit2_(&stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
                    throw PackError(.inflateFailed, "zlib could not start")
                }
                defer { inflateEnd(&stream) }
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
                stream.avail_in = 0
                stream.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = 0
                var inputLeft = input.count
                var outputLeft = capacity
                let chunk = Int(UInt32.max >> 2)
                while true {
                    if stream.avail_in == 0, inputLeft > 0 {
                        stream.avail_in = uInt(min(inputLeft, chunk))
                        inputLeft -= Int(stream.avail_in)
                    }
                    if stream.avail_out == 0, outputLeft > 0 {
                        stream.avail_out = uInt(min(outputLeft, chunk))
                        outputLeft -= Int(stream.avail_out)
                    }
                    let status = CAssetPackZlib.inflate(&stream, Z_NO_FLUSH)
                    if status == Z_STREAM_END { break }
                    if status == Z_BUF_ERROR, stream.avail_out == 0, outputLeft == 0 {
                        throw PackError(.sizeMismatch, "inflates to more than the declared \(size) bytes")
                    }
                    if status == Z_BUF_ERROR, stream.avail_in == 0, inputLeft == 0 {
                        throw PackError(.inflateFailed, "deflated data ends early")
                    }
                    guard status == Z_OK else {
                        let message = stream.msg.map { String(cString: $0) } ?? "zlib error \(status)"
                        throw PackError(.inflateFailed, message)
                    }
                }
                let produced = Int(stream.total_out)
                guard produced == capacity else {
                    throw PackError(.sizeMismatch, "inflates to \(produced) bytes, declared \(size)")
                }
                return produced
            }
        }
        let data = PackData(storage: storage, start: 0, count: capacity)
        let crc = data.withUnsafeBytes { CRC32.checksum($0) }
        guard crc == expected else {
            throw PackError(.crcMismatch, "data has CRC \(hex32(crc)), header says \(hex32(expected))")
        }
        return data
    }
}
