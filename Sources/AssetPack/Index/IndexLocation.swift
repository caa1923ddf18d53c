/// Where the end record's comment says the index is: `pack/1 offset=N size=N crc=XXXXXXXX`.
struct IndexLocation: Equatable {
    static let prefix = "pack/1 "

    var offset: UInt64
    var size: UInt64
    var crc32: UInt32

    init(offset: UInt64, size: UInt64, crc32: UInt32) {
        self.offset = offset
        self.size = size
        self.crc32 = crc32
    }

    /// `nil` when the comment is not ours at all; a comment that starts like ours but is
    /// malformed parses to a location that cannot pass the checks (so it is an error, not a
    /// silent fallback to the central directory).
    init?(comment: [UInt8]) {
        guard comment.starts(with: Array(Self.prefix.utf8)) else { return nil }
        let fields = String(decoding: comment.dropFirst(Self.prefix.utf8.count), as: UTF8.self)
            .split(separator: " ", omittingEmptySubsequences: false)
        var values: [Substring: Substring] = [:]
        for field in fields {
            let pair = field.split(separator: "=", maxSplits: 1)
            if pair.count == 2 { values[pair[0]] = pair[1] }
        }
        guard fields.count == 3, let offset = values["offset"].flatMap({ UInt64($0) }),
            let size = values["size"].flatMap({ UInt64($0) }), let crc = values["crc"], crc.count == 8,
            let crcValue = UInt32(crc, radix: 16)
        else {
            self.init(offset: .max, size: .max, crc32: 0)
            return
        }
        self.init(offset: offset, size: size, crc32: crcValue)
    }

    var comment: [UInt8] { Array("\(Self.prefix)offset=\(offset) size=\(size) crc=\(hex32(crc32))".utf8) }
}
