// The one place where zip records are parsed and written (PKWARE APPNOTE 6.3.x).
// Every other part of the library asks these types; bounds and overflow checks live here.

enum ZipSignature {
    static let localHeader: UInt32 = 0x0403_4b50
    static let centralHeader: UInt32 = 0x0201_4b50
    static let endOfCentralDirectory: UInt32 = 0x0605_4b50
    static let zip64EndOfCentralDirectory: UInt32 = 0x0606_4b50
    static let zip64Locator: UInt32 = 0x0706_4b50
}

enum ZipConstants {
    static let localHeaderSize = 30
    static let centralHeaderSize = 46
    static let endRecordSize = 22
    static let zip64LocatorSize = 20
    static let zip64EndRecordSize = 56
    static let maxCommentLength = 65_535
    /// The furthest back from the end of a file an end record can start.
    static let maxEndSearch = endRecordSize + maxCommentLength
    static let marker16: UInt16 = 0xFFFF
    static let marker32: UInt32 = 0xFFFF_FFFF
    static let zip64ExtraID: UInt16 = 0x0001
    /// Android's alignment extra block (apksigner): u16 id, u16 size, u16 alignment, zero padding.
    static let alignmentExtraID: UInt16 = 0xD935
    static let alignmentExtraMinimumSize = 6
    /// The largest alignment a pack may have: the 0xD935 block records it in a u16, and the
    /// builder and every reader agree on this bound.
    static let maxAlignment = 32_768
    static let flagEncrypted: UInt16 = 1 << 0
    static let flagDataDescriptor: UInt16 = 1 << 3
    static let flagUTF8: UInt16 = 1 << 11
    static let methodStored: UInt16 = 0
    static let methodDeflated: UInt16 = 8
}

/// Whether `alignment` is one a pack may have: a power of two from 1 to ``ZipConstants/maxAlignment``.
func isValidAlignment(_ alignment: Int) -> Bool {
    alignment >= 1 && alignment <= ZipConstants.maxAlignment && alignment & (alignment - 1) == 0
}

func hex16(_ value: UInt16) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}

func hex32(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: max(0, 8 - digits.count)) + digits
}
