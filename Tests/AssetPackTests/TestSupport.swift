import Foundation
import Testing

@testable import AssetPack
import TestSupport

/// Builds a pack from in-memory files and returns its path.
@discardableResult
func buildPack(
    _ files: [String: [UInt8]], at path: String, options: PackBuilder.Options = .init()
) throws -> String {
    var builder = PackBuilder(options: options)
    for (name, bytes) in files { try builder.add(path: name, contents: bytes) }
    try builder.write(to: path)
    return path
}

/// A small mixed content set: nested folders, an empty file, non-ASCII names.
func sampleFiles(seed: UInt64 = 1) -> [String: [UInt8]] {
    var random = SeededBytes(state: seed)
    return [
        "Decks/animals.json": Array(#"{"id":"animals","cards":[]}"#.utf8),
        "Images/duck.png": random.bytes(3000),
        "Images/duck@2x.png": random.bytes(7000),
        "Images/duck@3x~ipad.png": random.bytes(12000),
        "Lessons/Урок 1.txt": Array("Привет, мир".utf8),
        "Lessons/日本語/ひらがな.txt": Array("あいうえお".utf8),
        "empty.txt": [],
        "notes with spaces.md": Array("# Notes\n".utf8),
    ]
}


/// Overwrites `bytes` at `offset` in the file at `path`.
func patchFile(_ path: String, at offset: Int, with bytes: [UInt8]) throws {
    var data = try fileBytes(path)
    data.replaceSubrange(offset..<offset + bytes.count, with: bytes)
    try Data(data).write(to: URL(fileURLWithPath: path))
}

/// Whether a tool is installed (tests that need it say so by failing, not skipping).
func which(_ tool: String) -> Bool { (try? run("sh", ["-c", "command -v \(tool)"]))?.status == 0 }

extension Pack {
    /// The pack's own index entry (the last zip entry), which the content surface leaves out.
    var indexEntry: PackEntry { zipEntries[zipEntries.count - 1] }
}
