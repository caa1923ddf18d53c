import AssetPack
import Foundation
import TestSupport
import Testing

/// The repository's root, from this file's place in it.
private let repositoryRoot = Repository.root

/// The sample app package of Tests/Fixtures/PluginApp, copied under .build-plugin-app/ (ignored by
/// git) and built there with `swift build`, as an app team would build theirs.
private struct SampleApp {
    let root = repositoryRoot + "/.build-plugin-app"
    var package: String { root + "/package" }
    var build: String { root + "/build" }
    var packs: String { package + "/Sources/AppContent/Packs" }
    var resources: String { build + "/debug/PluginApp_AppContent.resources" }

    /// A fresh copy of the fixture (the build folder is kept, as between an app's builds).
    func prepare() throws {
        let manager = FileManager.default
        try? manager.removeItem(atPath: package)
        try manager.createDirectory(atPath: root, withIntermediateDirectories: true)
        try manager.copyItem(atPath: repositoryRoot + "/Tests/Fixtures/PluginApp", toPath: package)
        let template = try String(contentsOfFile: package + "/Package.swift.template", encoding: .utf8)
        try template.replacingOccurrences(of: "ASSET_PACKS_PATH", with: repositoryRoot)
            .write(toFile: package + "/Package.swift", atomically: true, encoding: .utf8)
        try manager.removeItem(atPath: package + "/Package.swift.template")
        // As in an app's repository, the package's dependencies are resolved before it is built
        // (the first build would otherwise write Package.resolved, a change to the package that
        // makes SwiftPM plan the next build afresh).
        let resolved = try run("swift", ["package", "--package-path", package, "--scratch-path", build, "resolve"])
        #expect(resolved.status == 0, "\(resolved.stderr)")
    }

    /// `swift build` of the sample app; `-v` lists every command it runs.
    ///
    /// It first lets the clock move on: a build system cannot trust a file changed within the same
    /// moment it looked at it (git calls this racy timestamps) and runs its command again on the
    /// next build. An author's edits are never that close to a build; this test's are.
    func swiftBuild() throws -> ProcessResult {
        Thread.sleep(forTimeInterval: 1.5)
        return try run("swift", ["build", "--package-path", package, "--scratch-path", build, "-v"], removing: ["SOURCE_DATE_EPOCH"])
    }

    /// The packs SwiftPM ran `packtool build` for in `output` (`-v` prints each command).
    func packed(_ output: ProcessResult) -> [String] {
        (output.output + output.stderr).split(separator: "\n").compactMap { line in
            guard line.contains("packtool-tool build "), let start = line.range(of: "/Packs/"),
                let end = line.range(of: " -o ", range: start.upperBound..<line.endIndex)
            else { return nil }
            return String(line[start.upperBound..<end.lowerBound])
        }.sorted()
    }

    /// The packs packtool wrote in `output` (a command that finds its pack up to date writes
    /// nothing; SwiftPM runs a target's pack commands again when files are added or removed).
    func rebuilt(_ output: ProcessResult) -> [String] {
        output.output.split(separator: "\n").compactMap { line in
            guard let start = line.range(of: "/AssetPackPlugin/"), let end = line.range(of: ".pack: "),
                start.upperBound <= end.lowerBound, !line.hasSuffix(": up to date")
            else { return nil }
            return String(line[start.upperBound..<end.lowerBound])
        }.sorted()
    }

    func modificationDate(_ pack: String) throws -> Date? {
        try FileManager.default.attributesOfItem(atPath: resources + "/" + pack + ".pack")[.modificationDate] as? Date
    }
}

@Suite("The build-tool plugin, on a sample app package built with swift build", .serialized, .tags(.nestedBuild), .fullTierOnly)
struct PluginTests {
    @Test("packs are built once, kept across no-op builds, rebuilt for what changed, and errors name the file")
    func sampleApp() throws {
        let app = SampleApp()
        try app.prepare()
        // The first build packs both folders; the app reads them through Bundle.module.
        let first = try app.swiftBuild()
        try #require(first.status == 0, "\(first.output)\(first.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: app.resources).sorted() == ["words-ru.pack", "words.pack"])
        let words = try Pack(path: app.resources + "/words.pack")
        #expect(words.metadata?.locale == "en")
        #expect(words.entries.map(\.path) == ["Decks/words.json", "Images/cat.png", "Images/cat@2x.png"])
        let shown = try run(app.build + "/debug/App", [])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.output.contains("ru {\"id\": \"words\", \"title\": \"Слова\""))
        #expect(shown.output.contains("picture Images/cat@2x.png\n"))
        // The target without a Packs/ folder built, and got no resources.
        #expect(!FileManager.default.fileExists(atPath: app.build + "/debug/PluginApp_NoPacks.resources"))

        #expect(app.packed(first) == ["words", "words-ru"])
        // Builds with nothing changed never write a pack. After a clean build, SwiftPM 6.3 links
        // packtool again in the next build or two (the tool's objects sit in both of its build
        // graphs) and so runs the pack commands again; packtool finds them up to date. Once that
        // settles, a build runs no pack command at all.
        let ruBefore = try app.modificationDate("words-ru")
        let wordsBefore = try app.modificationDate("words")
        var settled = false
        for _ in 1...4 where !settled {
            let again = try app.swiftBuild()
            #expect(again.status == 0, "\(again.stderr)")
            #expect(app.rebuilt(again) == [], "\(again.output)")
            settled = app.packed(again).isEmpty
        }
        #expect(settled, "every no-op build ran pack commands")
        #expect(try app.modificationDate("words") == wordsBefore)
        #expect(try app.modificationDate("words-ru") == ruBefore)

        // Adding, editing and deleting a file of words-ru rebuilds that pack alone: words.pack is
        // never written again (its command, when SwiftPM runs it, finds it up to date).
        try #"{"id": "extra", "title": "Ещё", "cards": [{"id": "dog", "front": "собака", "back": "зверь"}]}"#
            .write(toFile: app.packs + "/words-ru/Decks/extra.json", atomically: true, encoding: .utf8)
        let added = try app.swiftBuild()
        #expect(added.status == 0, "\(added.stderr)")
        #expect(app.rebuilt(added) == ["words-ru"], "\(added.output)")
        #expect(try Pack(path: app.resources + "/words-ru.pack").contains("Decks/extra.json"))
        #expect(try app.modificationDate("words") == wordsBefore)
        #expect(try app.modificationDate("words-ru") != ruBefore)

        try #"{"id": "extra", "title": "Ещё", "cards": [{"id": "dog", "front": "пёс", "back": "зверь"}]}"#
            .write(toFile: app.packs + "/words-ru/Decks/extra.json", atomically: true, encoding: .utf8)
        let edited = try app.swiftBuild()
        #expect(app.packed(edited) == ["words-ru"])
        #expect(app.rebuilt(edited) == ["words-ru"])
        #expect(try String(decoding: Pack(path: app.resources + "/words-ru.pack").data(forPath: "Decks/extra.json"), as: UTF8.self).contains("пёс"))

        try FileManager.default.removeItem(atPath: app.packs + "/words-ru/Decks/extra.json")
        let deleted = try app.swiftBuild()
        #expect(app.rebuilt(deleted) == ["words-ru"])
        #expect(try app.modificationDate("words") == wordsBefore)
        #expect(try !Pack(path: app.resources + "/words-ru.pack").contains("Decks/extra.json"))

        // A broken deck fails the build with one FILE:LINE: error: line naming it.
        let deck = app.packs + "/words/Decks/words.json"
        try #"{"id": "words", "title": "Words", "cards": [{"id": "cat", "front": "", "back": "x"}]}"#
            .write(toFile: deck, atomically: true, encoding: .utf8)
        let broken = try app.swiftBuild()
        #expect(broken.status != 0)
        #expect((broken.output + broken.stderr).contains("\(deck):1: error: cat: empty text: front"), "\(broken.output)\(broken.stderr)")
    }
}
