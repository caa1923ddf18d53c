// The README's library examples, written against the public API only (no @testable import): if
// the README's code stops compiling or working, this suite fails.
import AssetLibrary
import AssetPack
import Foundation
import StudyContent
import StudyEngine
import StudyProgress
import TestSupport
import Testing

@Suite("The README's examples, through the public API only")
struct ReadmeExamplesTests {
    /// Source folders like the repository's: a base pack with a picture and its variants, and an
    /// English and a Russian pack with the same bank.
    static func sources(in scratch: Scratch) throws -> (base: URL, en: URL, ru: URL) {
        for suffix in ["", "@2x", "@3x", "@3x~ipad"] { try scratch.write("base/Images/categories/parking\(suffix).png", "png\(suffix)") }
        for (language, prompt) in [("en", "Where may you park?"), ("ru", "Где можно парковаться?")] {
            try scratch.write("\(language)/.pack.json", #"{"name": "driving-\#(language)", "locale": "\#(language)"}"#)
            try scratch.write(
                "\(language)/Banks/driving-rules/bank.json",
                #"{"id": "driving-rules", "title": "Rules", "language": "\#(language)", "categories": ["parking"]}"#)
            try scratch.write(
                "\(language)/Banks/driving-rules/parking.json",
                #"""
                {"id": "parking", "title": "Parking", "picture": "Images/categories/parking.png", "lessons": [
                 {"id": "parking-1", "title": "Distances", "intro": "…", "questions": [
                  {"id": "parking-01", "prompt": "\#(prompt)", "explanation": "…", "choices": [
                   {"text": "5 m", "correct": true}, {"text": "1 m", "correct": false}]}]}]}
                """#)
        }
        return (URL(fileURLWithPath: scratch.url("base")), URL(fileURLWithPath: scratch.url("en")), URL(fileURLWithPath: scratch.url("ru")))
    }

    @Test("build, open, read without copying, list a directory")
    func packs() throws {
        let scratch = try Scratch()
        let (baseFolder, _, _) = try Self.sources(in: scratch)
        let url = URL(fileURLWithPath: scratch.url("driving-base.pack"))

        // README: "The library in ten lines"
        var builder = PackBuilder(options: .init(name: "driving-base"))
        try builder.addDirectory(at: baseFolder)                       // names checked and NFC-normalized
        try builder.add(path: "extra/hello.txt", contents: Array("hi".utf8))
        let report = try builder.write(to: url)                         // temporary file, check, sync, rename

        let pack = try Pack(contentsOf: url)                            // map + index: no directory walk
        let png = try pack.data(forPath: "Images/categories/parking@2x.png")  // PackData: a zero-copy view
        let data = png.data                                             // Data over the same bytes, no copy
        let names = pack.contentsOfDirectory(atPath: "Images/categories").map(\.name)

        #expect(report.metadata.entryCount == 5)
        #expect(pack.count == 5)
        #expect(String(decoding: data, as: UTF8.self) == "png@2x")
        #expect(names == ["parking.png", "parking@2x.png", "parking@3x.png", "parking@3x~ipad.png"])
        #expect(pack.contains("extra/hello.txt") && !pack.contains(".pack/index.json"))
        #expect(pack.metadata?.name == "driving-base")
    }

    @Test("a store: priorities from the packs, the locale chain, a variant, a bank, a swap")
    func store() throws {
        let scratch = try Scratch()
        let (baseFolder, en, ru) = try Self.sources(in: scratch)
        var urls: [URL] = []
        for folder in [baseFolder, en, ru] {
            let settings = try PackBuildSettings.load(fromFolder: folder.path)
            var builder = PackBuilder(options: .init(name: settings.name, locale: settings.locale))
            try builder.addDirectory(at: folder)
            let url = URL(fileURLWithPath: folder.path + ".pack")
            try builder.write(to: url)
            urls.append(url)
        }

        // README: "Many packs as one: the store"
        let store = AssetStore()                                        // development locale: en
        for url in urls { try store.mount(contentsOf: url) }            // locale packs over base packs
        try store.setLocale("ru-RU")                                    // ru-RU → ru → en → base packs
        let bank = try QuestionBank.load(id: "driving-rules", from: store.currentView)
        let picture = store.image(named: "Images/categories/parking.png", scale: 3, idiom: .pad)

        #expect(store.localeChain.map(\.description) == ["ru-RU", "ru", "en"])
        #expect(bank.questions.first?.prompt == "Где можно парковаться?")
        #expect(picture?.path == "Images/categories/parking@3x~ipad.png")
        #expect(picture?.pack.metadata?.name == "base")
        #expect(store.lookup("Banks/driving-rules/parking.json")?.priority == .locale)
        #expect(store.lookup("Images/categories/parking.png")?.priority == .base)

        try store.setLocale("en")
        #expect(try QuestionBank.load(id: "driving-rules", from: store.currentView).questions.first?.prompt == "Where may you park?")
    }

    @Test("errors are values with stable codes and one line that says what and where")
    func errors() throws {
        let error = #expect(throws: PackError.self) { try Pack(path: "/nonexistent/x.pack") }
        #expect(error?.code == .fileNotFound)
        #expect(error?.code.rawValue == "fileNotFound")
        #expect(error?.systemError == .noSuchFileOrDirectory)
        #expect(error?.description == "/nonexistent/x.pack: no such file")
    }
}

/// The README's study example, through the public API only.
@Suite("The README's study example, through the public API only")
struct ReadmeStudyExampleTests {
    @Test("a session plans today's queue from the bank and records each answer until none is left")
    func session() throws {
        let scratch = try Scratch()
        let (base, english, _) = try ReadmeExamplesTests.sources(in: scratch)
        let store = AssetStore()
        for (folder, name) in [(base, "base"), (english, "en")] {
            var builder = PackBuilder(options: .init(name: name, locale: name == "en" ? "en" : nil))
            try builder.addDirectory(at: folder)
            _ = try builder.write(to: scratch.url(name + ".pack"))
            _ = try store.mount(contentsOf: URL(fileURLWithPath: scratch.url(name + ".pack")))
        }
        let databasePath = scratch.url("progress.sqlite")
        // As in the README:
        let progress = try ProgressStore(path: databasePath)
        let material = try StudyMaterial.load(.bank, id: "driving-rules", from: store.currentView)
        let calendar = LearnerCalendar.local(.current)
        let session = try StudySession(
            material: material, store: progress, scheduler: AnyScheduler.standard(.fsrs6, calendar: calendar, fuzz: false),
            calendar: calendar, now: Date())
        var answered = 0
        while session.next != nil {
            try session.answer(.multipleChoice(.rightFirstTry), at: Date())
            answered += 1
        }
        // The one question, new, then again after FSRS's first learning step, within the session.
        #expect(answered == 2)
        #expect(try progress.reviews(source: "bank/driving-rules").count == 2)
    }
}
