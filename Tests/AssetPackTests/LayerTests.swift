import Foundation
import TestSupport
import Testing

/// AssetPack's folders in one order, each using only those before it (the AssetPack catalog's
/// overview says which and why): this reads every source file and fails on a name a file uses
/// that a later folder declares, an arrow that points back.
@Suite("AssetPack's layers: each folder uses only those before it")
struct LayerTests {
    /// The order: the top-level files first (errors, names), then the folders.
    static let order = ["", "System", "Storage", "Checksums", "ZIP", "JSON", "Index", "Reader", "Builder"]

    /// The types, protocols and type aliases each file declares, by the name declared.
    static func declarations(in text: String) -> Set<String> {
        let pattern = #"(?m)^(?:@\w+\s+)*(?:(?:public|package|internal|private|fileprivate|final|nonisolated)\s+)*(?:struct|enum|class|protocol|actor|typealias)\s+([A-Z]\w*)"#
        let regex = try? NSRegularExpression(pattern: pattern)
        let range = NSRange(text.startIndex..., in: text)
        return Set((regex?.matches(in: text, range: range) ?? []).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        })
    }

    /// The identifiers a file's code uses (comments and string literals left out).
    static func identifiers(in text: String) -> Set<String> {
        var code = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("//") { continue }
            code += line + "\n"
        }
        // Strings: drop "…" spans (interpolations inside them lose their names, which is fine: a
        // layer is broken by code, not by a message).
        code = code.replacingOccurrences(of: #""(?:[^"\\\n]|\\.)*""#, with: "\"\"", options: .regularExpression)
        var names = Set<String>()
        var current = ""
        for character in code.unicodeScalars {
            if CharacterSet.alphanumerics.contains(character) || character == "_" {
                current.unicodeScalars.append(character)
            } else if !current.isEmpty {
                names.insert(current)
                current = ""
            }
        }
        return names
    }

    @Test("no file uses a type declared in a folder after its own")
    func noArrowPointsBack() throws {
        let root = Repository.path("Sources/AssetPack")
        var files: [(layer: Int, path: String, text: String)] = []
        for (layer, folder) in Self.order.enumerated() {
            let path = folder.isEmpty ? root : root + "/" + folder
            let names = try FileManager.default.contentsOfDirectory(atPath: path).filter { $0.hasSuffix(".swift") }.sorted()
            for name in names {
                files.append((layer, (folder.isEmpty ? "" : folder + "/") + name, try String(contentsOfFile: path + "/" + name, encoding: .utf8)))
            }
        }
        // Every Swift file of the library is in one of the folders named.
        let all = try FileManager.default.subpathsOfDirectory(atPath: root).filter { $0.hasSuffix(".swift") }
        #expect(Set(all) == Set(files.map(\.path)), "files outside the ordered folders: \(Set(all).subtracting(files.map(\.path)).sorted())")
        var declaredIn: [String: Int] = [:]
        var ambiguous = Set<String>()
        for file in files {
            for name in Self.declarations(in: file.text) {
                if let other = declaredIn[name], other != file.layer { ambiguous.insert(name) }
                declaredIn[name] = file.layer
            }
        }
        #expect(declaredIn.count > 40, "only \(declaredIn.count) declarations found: the scan is broken")
        var violations: [String] = []
        for file in files {
            for name in Self.identifiers(in: file.text).sorted() where !ambiguous.contains(name) {
                guard let layer = declaredIn[name], layer > file.layer else { continue }
                violations.append("\(file.path) uses \(name), declared in \(Self.order[layer])/")
            }
        }
        #expect(violations.isEmpty, "\(violations.joined(separator: "; "))")
    }

    @Test("the check sees a planted arrow that points back")
    func seesABackwardArrow() {
        let reader = "struct Pack { func check() { _ = ReplacementFile.self } }"
        let builder = "struct ReplacementFile {}"
        #expect(Self.declarations(in: builder) == ["ReplacementFile"])
        #expect(Self.identifiers(in: reader).contains("ReplacementFile"))
        #expect(!Self.identifiers(in: "// ReplacementFile\nlet x = \"ReplacementFile\"").contains("ReplacementFile"))
    }
}
