import Foundation
import TestSupport
import Testing

@testable import AssetPack

/// A delivery client reads a pack's layout from its tail before any byte is authenticated:
/// every hostile offset is an error, never a trap, and the layout it accepts is one the
/// planner can trust (entries in order, inside the file, headers before data).
@Suite("PackLayout: the tail a client reads first, from hostile bytes")
struct PackLayoutTests {
    static let files: [(String, [UInt8])] = [("a.txt", Array("alpha\n".utf8)), ("b/c.txt", Array(repeating: 0x63, count: 5000)), ("d.txt", Array("delta".utf8))]

    /// A forged pack and where its tail begins.
    static func forged(
        _ scratch: Scratch, editIndex: @escaping (inout [UInt8]) -> Void = { _ in },
        editEntries: ((inout [ZipEntryLocation]) -> Void)? = nil
    ) throws -> (bytes: [UInt8], tail: UInt64) {
        let bytes = try forgePack(Self.files, at: scratch.url("forged-\(UInt32.random(in: 0...UInt32.max)).pack"), editIndex: editIndex, editEntries: editEntries)
        let pack = try Pack(bytes: bytes, name: "forged")
        return (bytes, try PackLayout.tailOffset(of: pack))
    }

    static func parse(_ bytes: [UInt8], tail: UInt64) throws(PackError) -> PackLayout {
        try PackLayout.parse(tail: Array(bytes[Int(tail)...]), from: tail, fileSize: UInt64(bytes.count), name: "origin")
    }

    @Test("an honest tail: every entry in order, each header made again byte for byte as the builder wrote it")
    func honest() throws {
        let scratch = try Scratch()
        let (bytes, tail) = try Self.forged(scratch)
        let layout = try Self.parse(bytes, tail: tail)
        #expect(layout.entries.map(\.path) == ["a.txt", "b/c.txt", "d.txt", ".pack/index.json"])
        for item in layout.entries {
            let header = try #require(item.header)
            #expect(Array(bytes[Int(item.location.headerOffset)..<Int(item.location.dataOffset)]) == header, "\(item.path)")
        }
    }

    @Test("a central record whose local header lies past its data, or in the previous entry, is refused")
    func headerOutOfOrder() throws {
        let scratch = try Scratch()
        for edit in [
            { (entries: inout [ZipEntryLocation]) in entries[0].headerOffset = entries[1].dataOffset + 10 },
            { (entries: inout [ZipEntryLocation]) in entries[1].headerOffset = entries[0].dataOffset + 2 },
            { (entries: inout [ZipEntryLocation]) in entries[2].headerOffset = entries[3].dataOffset + 100 },
        ] {
            let (bytes, tail) = try Self.forged(scratch, editEntries: edit)
            #expect(throws: PackError.self) { try Self.parse(bytes, tail: tail) }
            do {
                _ = try Self.parse(bytes, tail: tail)
            } catch {
                #expect(error.code == .entryOutOfBounds, "\(error)")
                #expect(error.location.file == "origin")
            }
        }
    }

    @Test("a Zip64 local header offset near 2^64 is an error, not an overflow")
    func offsetNearTheTop() throws {
        let scratch = try Scratch()
        let (bytes, tail) = try Self.forged(scratch, editEntries: { $0[0].headerOffset = .max - 15 })
        #expect(throws: PackError.self) { try Self.parse(bytes, tail: tail) }
    }

    @Test("an alignment the builder cannot write (65536) is refused before any header is made")
    func alignmentTooLarge() throws {
        let scratch = try Scratch()
        // The index is the last entry: its data starts where the honest pack's does.
        let tail = try Self.forged(scratch).tail
        let bytes = try forgePack(Self.files, at: scratch.url("wide.pack"), editIndex: { index in
            let text = String(decoding: index, as: UTF8.self).replacingOccurrences(of: "\"alignment\":16", with: "\"alignment\":65536")
            index = Array(text.utf8)
        })
        do {
            _ = try Self.parse(bytes, tail: tail)
            Issue.record("accepted an alignment of 65536")
        } catch {
            #expect(error.code == .badIndex && error.detail.contains("32768"), "\(error)")
        }
    }

    @Test("a tail that does not start where the catalog says (the end record points elsewhere) is refused")
    func tailElsewhere() throws {
        let scratch = try Scratch()
        let (bytes, tail) = try Self.forged(scratch)
        // The whole file handed over as if the catalog said the tail starts at 0.
        #expect(throws: PackError.self) { try Self.parse(bytes, tail: 0) }
        // A tail one byte later: not the end of the file the catalog describes.
        let shorter = Array(bytes[(Int(tail) + 1)...])
        #expect(throws: PackError.self) { try PackLayout.parse(tail: shorter, from: tail, fileSize: UInt64(bytes.count), name: "x") }
    }

    @Test("the hostile-input table's packs: each tail parses or gives a typed error, never a trap")
    func hostileTable() throws {
        let scratch = try Scratch()
        var parsed = 0
        for testCase in HostileCase.all {
            let bytes = try testCase.make(scratch.url(""))
            guard let pack = try? Pack(bytes: bytes, name: "case"), let tail = try? PackLayout.tailOffset(of: pack), tail <= UInt64(bytes.count) else { continue }
            if (try? Self.parse(bytes, tail: tail)) != nil { parsed += 1 }
        }
        #expect(parsed >= 5, "\(parsed) hostile-table packs parsed")
    }
}
