import TestSupport
import Testing

@testable import AssetPack

/// The index parser reads the writer's own form on a fast path (numbers eight digits at a time,
/// names eight bytes at a time) and anything else on the general path; both must agree, and
/// both must refuse what strict JSON refuses.
@Suite("Index parser: the fast path and the general path agree")
struct IndexParserTests {
    static func parse(_ json: String) throws -> EntryTable { try parse(Array(json.utf8)) }

    static func parse(_ bytes: [UInt8], pathBudget: Int = EntryTable.maxPathBytes) throws -> EntryTable {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(IndexParser.Failure) in try IndexParser.parse(raw, pathBudget: pathBudget).1 }
        }
        return try result.get()
    }

    static func document(_ files: String, count: Int) -> String {
        #"{"format":1,"name":"n","alignment":1,"entryCount":\#(count),"digest":"sha256:0","files":{\#(files)}}"#
    }

    @Test("numbers of 1 to 19 digits, compact or spaced, at the end of the bytes or not")
    func numbersOfEveryLength() throws {
        let digits = "9876543210987654321"
        var values: [UInt64] = []
        var compact: [String] = []
        var spaced: [String] = []
        for length in 1...19 {
            let value = UInt64(digits.prefix(length))!
            values.append(value)
            let number = values.count - 1
            compact.append(#""f\#(number)":[\#(number),\#(value),\#(value),\#(value % 4_294_967_296)]"#)
            spaced.append(#""f\#(number)": [ \#(number) , \#(value) ,\#(value), \#(value % 4_294_967_296) ]"#)
        }
        // Sorted keys as the writer emits them ("f0" < "f1" < "f10" < ...): entry order is listing order.
        for listing in [compact, spaced] {
            let table = try Self.parse(Self.document(listing.joined(separator: ","), count: values.count))
            #expect(table.count == values.count)
            for (number, value) in values.enumerated() {
                #expect(table.row(number).dataOffset == value, "\(number)")
                #expect(table.row(number).size == value)
                #expect(table.row(number).crc32 == UInt32(value % 4_294_967_296))
            }
        }
        // The last file's numbers end within eight bytes of the end of the buffer.
        let short = try Self.parse(#"{"format":1,"name":"n","alignment":1,"entryCount":1,"digest":"d","files":{"a":[0,12345678,9,7]}}"#)
        #expect(short.row(0).dataOffset == 12_345_678)
        #expect(short.row(0).crc32 == 7)
    }

    @Test("leading zeros, 20-digit numbers, fractions and signs are refused on both paths")
    func badNumbers() {
        for bad in ["[0,012,1,1]", "[0, 012, 1, 1]", "[0,1,99999999999999999999,1]", "[0,1.5,1,1]", "[0,-1,1,1]",
            "[0,1e3,1,1]", "[0,,1,1]", "[0,1,1]", "[0,1,1,4294967296]"]
        {
            #expect(throws: IndexParser.Failure.self, "\(bad)") { try Self.parse(Self.document(#""a":\#(bad)"#, count: 1)) }
        }
    }

    @Test("names: long ASCII runs, escapes, non-ASCII, and the bytes JSON forbids")
    func names() throws {
        let names = [#"a\"quote"#, #"back\\slash"#, "a-name-much-longer-than-eight-bytes.txt", "ünïcödé-file-name.txt",
            #"tab\there"#, #"\u00e9t\u00e9"#]
        let decoded = ["a\"quote", "back\\slash", "a-name-much-longer-than-eight-bytes.txt", "ünïcödé-file-name.txt",
            "tab\there", "été"]
        let order = decoded.indices.sorted { Array(decoded[$0].utf8).lexicographicallyPrecedes(Array(decoded[$1].utf8)) }
        let listing = order.enumerated().map { #""\#(names[$1])":[\#($0),1,1,1]"# }.joined(separator: ",")
        let table = try Self.parse(Self.document(#""folder":{\#(listing)}"#, count: names.count))
        for (number, index) in order.enumerated() { #expect(table.path(number) == "folder/" + decoded[index]) }
        for bad in ["a\u{01}b-long-enough-for-a-word", "\u{1F}", #"bad\x"#, #"\ud800"#] {
            #expect(throws: IndexParser.Failure.self, "\(bad)") {
                try Self.parse(Self.document(#""\#(bad)":[0,1,1,1]"#, count: 1))
            }
        }
        var invalidUTF8 = Array(Self.document(#""abcdefghij-X":[0,1,1,1]"#, count: 1).utf8)
        let at = invalidUTF8.firstIndex(of: UInt8(ascii: "X"))!
        invalidUTF8[at] = 0xC0
        #expect(throws: IndexParser.Failure.self) { try Self.parse(invalidUTF8) }
    }

    @Test("a path over 65,535 bytes is refused, one of exactly 65,535 is not")
    func pathLimit() throws {
        let folder = String(repeating: "d", count: 40_000)
        let fits = String(repeating: "f", count: 65_535 - 40_001)
        let table = try Self.parse(Self.document(#""\#(folder)":{"\#(fits)":[0,1,1,1]}"#, count: 1))
        #expect(table.path(0).utf8.count == 65_535)
        #expect(throws: IndexParser.Failure.self) {
            try Self.parse(Self.document(#""\#(folder)":{"\#(fits)x":[0,1,1,1]}"#, count: 1))
        }
    }

    @Test("the paths may add up to the budget (the central directory's size), not a byte more")
    func pathBudget() throws {
        // Three files under one folder: 3 × "folder/x" = 24 bytes of paths from 40 of JSON.
        let json = Array(Self.document(#""folder":{"a":[0,1,1,1],"b":[1,1,1,1],"c":[2,1,1,1]}"#, count: 3).utf8)
        #expect(try Self.parse(json, pathBudget: 24).count == 3)
        #expect(throws: IndexParser.Failure.self) { try Self.parse(json, pathBudget: 23) }
    }

    @Test("the path hash takes the last partial word in one load, with the value of one byte at a time")
    func hashTail() {
        // The hash as first written: whole words, then the remaining bytes one by one.
        func bytewise(_ bytes: [UInt8]) -> UInt64 {
            var hash: UInt64 = 0x243F_6A88_85A3_08D3 ^ (UInt64(bytes.count) &* 0x9E37_79B9_7F4A_7C15)
            for start in stride(from: 0, to: bytes.count, by: 8) {
                var word: UInt64 = 0
                for (shift, byte) in bytes[start..<min(start + 8, bytes.count)].enumerated() {
                    word |= UInt64(byte) << UInt64(8 * shift)
                }
                hash = (hash ^ word) &* 0x9E37_79B9_7F4A_7C15
                hash ^= hash >> 32
            }
            hash ^= hash >> 33
            hash &*= 0xBF58_476D_1CE4_E5B9
            return hash ^ (hash >> 29)
        }
        var random = SeededBytes(state: 7)
        for length in 0...40 {
            let bytes = random.bytes(length)
            #expect(bytes.withUnsafeBytes { PathHash.hash($0) } == bytewise(bytes), "length \(length)")
        }
    }
}
