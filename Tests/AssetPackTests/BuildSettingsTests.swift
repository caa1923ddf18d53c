import Foundation
import TestSupport
import Testing

@testable import AssetPack

@Suite("Build settings (.pack.json): every key checked, errors name the file and line")
struct BuildSettingsTests {
    func load(_ text: String) throws(PackError) -> PackBuildSettings {
        try PackBuildSettings(json: Array(text.utf8), file: "src/.pack.json")
    }

    @Test("all keys, relative paths kept as written")
    func valid() throws {
        let settings = try load(
            #"{"name": "driving-ru", "locale": "ru", "contentVersion": "2026.11", "alignment": 4096, "base": "../b", "reference": "../en"}"#)
        #expect(
            settings
                == PackBuildSettings(
                    name: "driving-ru", locale: "ru", contentVersion: "2026.11", alignment: 4096, base: "../b",
                    reference: "../en"))
        #expect(try load("{}") == PackBuildSettings())
    }

    @Test(
        "an unknown key (with the near key), a wrong type or bad JSON is one error with file and line",
        arguments: [
            ("{\n  \"name\": \"x\",\n  \"locael\": \"en\"\n}", 3, #"unknown key "locael" (did you mean "locale"?); the keys are name, locale, contentVersion, alignment, base, reference"#),
            ("{\"Alignment\": 16}", 1, #"unknown key "Alignment" (did you mean "alignment"?); the keys are name, locale, contentVersion, alignment, base, reference"#),
            ("{\"colour\": \"red\"}", 1, #"unknown key "colour"; the keys are name, locale, contentVersion, alignment, base, reference"#),
            ("{\"alignment\": \"16\"}", 1, #""alignment" must be a whole number, not a string"#),
            ("{\"alignment\": 16.5}", 1, #""alignment" must be a whole number, not a number"#),
            ("{\n\"name\": [\"x\"]}", 2, #""name" must be a string, not an array"#),
            ("{\"name\": \"x\",\n\n \"locale\" \"en\"}", 3, "not valid JSON: expected ':' (column 11)"),
            ("[1]", 1, "expected an object of settings, found an array"),
        ] as [(String, Int, String)])
    func invalid(text: String, line: Int, detail: String) {
        #expect(throws: PackError(.invalidSettings, detail, at: .file("src/.pack.json", line: line))) { try load(text) }
    }

    @Test("a missing file is no settings; a FIFO in its place is refused without waiting")
    func files() throws {
        let scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.url("src"), withIntermediateDirectories: true)
        #expect(try PackBuildSettings.load(fromFolder: scratch.url("src")) == PackBuildSettings())
        #expect(try run("mkfifo", [scratch.url("src/.pack.json")]).status == 0)
        let error = #expect(throws: PackError.self) { try PackBuildSettings.load(fromFolder: scratch.url("src")) }
        #expect(error?.code == .notRegularFile)
    }

    @Test("a malformed locale is refused when building, before anything is written")
    func malformedLocale() throws {
        let scratch = try Scratch()
        var builder = PackBuilder(options: .init(locale: "en--US"))
        try builder.add(path: "a", contents: [1])
        let error = #expect(throws: PackError.self) { try builder.write(to: scratch.url("p.pack")) }
        #expect(error?.code == .malformedLocale)
        #expect(error?.detail == #""en--US": subtags are 1 to 8 ASCII letters or digits"#)
        #expect(!FileManager.default.fileExists(atPath: scratch.url("p.pack")))
    }
}
