import Foundation
import TestSupport
import Testing

@testable import AssetPack

@Suite("Foreign zips: Info-ZIP and Python archives")
struct ForeignZipTests {
    enum Maker: String, CaseIterable, CustomTestStringConvertible {
        case infoZipStored, infoZipDeflated, pythonStored, pythonDeflated
        var testDescription: String { rawValue }

        func make(source: String, zip: String) throws {
            switch self {
            case .infoZipStored, .infoZipDeflated:
                let result = try run("zip", [self == .infoZipStored ? "-0" : "-9", "-r", "-q", zip, "."], in: source)
                #expect(result.status == 0, "\(result.stderr)")
            case .pythonStored, .pythonDeflated:
                let method = self == .pythonStored ? "ZIP_STORED" : "ZIP_DEFLATED"
                let script = """
                    import os, sys, zipfile
                    src, out = sys.argv[1], sys.argv[2]
                    with zipfile.ZipFile(out, 'w', zipfile.\(method)) as z:
                        for root, dirs, files in os.walk(src):
                            dirs.sort()
                            for f in sorted(files):
                                p = os.path.join(root, f)
                                z.write(p, os.path.relpath(p, src))
                    """
                let result = try run("python3", ["-c", script, source, zip])
                #expect(result.status == 0, "\(result.stderr)")
            }
        }
    }

    static func contents() -> [String: [UInt8]] {
        var files = sampleFiles(seed: 3)
        files["text/repetitive.txt"] = Array(String(repeating: "the quick brown fox ", count: 5000).utf8)
        return files
    }

    @Test("list, read, verify and extract a zip made by another tool", arguments: Maker.allCases)
    func foreignZip(maker: Maker) throws {
        let folder = try Scratch()
        let files = Self.contents()
        let source = try folder.write(files)
        let zip = folder.url("foreign.zip")
        try maker.make(source: source, zip: zip)

        let pack = try Pack(path: zip)
        #expect(!pack.hasIndex)
        let fileEntries = pack.entries.filter { !$0.isDirectory }
        #expect(Set(fileEntries.map(\.path)) == Set(files.keys))
        if maker == .infoZipDeflated || maker == .pythonDeflated {
            #expect(pack.entry(forPath: "text/repetitive.txt")?.compression == .deflated)
        } else {
            #expect(pack.entries.allSatisfy { $0.compression == .stored })
        }
        for (name, bytes) in files { #expect(try Array(pack.data(forPath: name)) == bytes, "\(name)") }
        try pack.verify()
        try Pack(path: zip, backend: .read).verify()

        let extractor = PackExtractor(pack: pack)
        try extractor.extract(try extractor.select([]), to: folder.url("out"))
        #expect(try readTree(folder.url("out")) == files)

        // The synthesized index parses as JSON and lists every file.
        let index = try pack.synthesizedIndex()
        let json = try #require(try JSONSerialization.jsonObject(with: Data(index)) as? [String: Any])
        #expect(json["entryCount"] as? Int == files.count)
    }

    @Test("a deflated entry whose data is corrupt is a typed error, not garbage")
    func corruptDeflate() throws {
        let folder = try Scratch()
        let source = try folder.write(["text/repetitive.txt": Array(String(repeating: "abcdefgh", count: 4000).utf8)])
        let zip = folder.url("d.zip")
        try Maker.infoZipDeflated.make(source: source, zip: zip)
        let pack = try Pack(path: zip)
        let entry = try #require(pack.entry(forPath: "text/repetitive.txt"))
        let offset = Int(try pack.zipDetails(of: entry).dataOffset)
        try patchFile(zip, at: offset + 2, with: [0xFF, 0xFF, 0xFF, 0xFF])
        let error = try #require(throws: PackError.self) { try Pack(path: zip).data(forPath: "text/repetitive.txt") }
        #expect([PackError.Code.inflateFailed, .crcMismatch, .sizeMismatch].contains(error.code))
        #expect(error.location.entry == "text/repetitive.txt")
    }
}
