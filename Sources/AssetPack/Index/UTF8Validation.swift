/// Well-formed UTF-8 (RFC 3629): what the index's strings must be.
enum UTF8Validation {
    /// The length of the well-formed UTF-8 sequence starting at `index` (a non-ASCII lead byte),
    /// or 0 if it is ill-formed (overlong forms, surrogates and values past U+10FFFF included).
    static func sequenceLength(_ bytes: RawBytes, at index: Int) -> Int {
        let lead = bytes.byte(at: index)
        func continuation(_ offset: Int, _ range: ClosedRange<UInt8> = 0x80...0xBF) -> Bool {
            index + offset < bytes.count && range.contains(bytes.byte(at: index + offset))
        }
        switch lead {
        case 0xC2...0xDF: return continuation(1) ? 2 : 0
        case 0xE0: return continuation(1, 0xA0...0xBF) && continuation(2) ? 3 : 0
        case 0xE1...0xEC, 0xEE...0xEF: return continuation(1) && continuation(2) ? 3 : 0
        case 0xED: return continuation(1, 0x80...0x9F) && continuation(2) ? 3 : 0
        case 0xF0: return continuation(1, 0x90...0xBF) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF1...0xF3: return continuation(1) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF4: return continuation(1, 0x80...0x8F) && continuation(2) && continuation(3) ? 4 : 0
        default: return 0
        }
    }
}
