// The README's library examples, written against the public API only (no @testable import): if
// the README's code stops compiling or working, this suite fails.
import AssetDelivery
import AssetLibrary
import AssetPack
import Foundation
import PackTrust
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
        #expect(error?.underlying == .noSuchFileOrDirectory)
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

/// The README's delivery example, through the public API only: packs published with a root of
/// trust, installed from the repository into a device's folder for a locale's chain.
@Suite("The README's delivery example, through the public API only")
struct ReadmeDeliveryExampleTests {
    /// An origin that serves a repository folder as a web server would (no ranges: every GET is
    /// the whole file, which the installer takes as such). The README's example uses
    /// URLSessionTransport, the default.
    struct FolderTransport: DeliveryTransport {
        let folder: String
        let base: URL

        func get(
            _ url: URL, range: Range<UInt64>?, ifRange: String?, limit: UInt64, head: @escaping @Sendable (RemoteResponse) throws -> Void,
            receive: @escaping @Sendable (Data) throws -> Void
        ) async throws -> RemoteResponse {
            let relative = String(url.absoluteString.dropFirst(base.absoluteString.count))
            guard let data = FileManager.default.contents(atPath: folder + "/" + relative) else {
                let missing = RemoteResponse(status: 404, etag: nil, totalLength: nil, firstByte: 0, bodyBytes: 0)
                try head(missing)
                return missing
            }
            let response = RemoteResponse(status: 200, etag: nil, totalLength: UInt64(data.count), firstByte: 0, bodyBytes: 0)
            try head(response)
            guard UInt64(data.count) <= limit else { throw DeliveryError(.tooMuchData, "more than \(limit) bytes", at: .file(url.absoluteString)) }
            try receive(data)
            return RemoteResponse(status: 200, etag: nil, totalLength: UInt64(data.count), firstByte: 0, bodyBytes: UInt64(data.count))
        }
    }

    @Test("publish with a root of trust; install a locale's chain into the device's folder; a store attached sees the packs")
    func delivery() async throws {
        let scratch = try Scratch()
        let (base, english, russian) = try ReadmeExamplesTests.sources(in: scratch)
        var packs: [String] = []
        for (folder, name, locale) in [(base, "driving-base", nil), (english, "driving-en", "en"), (russian, "driving-ru", "ru")] as [(URL, String, String?)] {
            var builder = PackBuilder(options: .init(name: name, locale: locale))
            try builder.addDirectory(at: folder)
            _ = try builder.write(to: scratch.url(name + ".pack"))
            packs.append(scratch.url(name + ".pack"))
        }
        let key = Minisign.SecretKey.generate()
        var root = try Root(version: 1, expires: Date().addingTimeInterval(86_400), threshold: 1, keys: [key.publicKey])
        try root.sign(with: key)
        _ = try Publisher.publish(packs: packs, to: scratch.url("repo"), keys: [key], version: 1, expires: Date().addingTimeInterval(3600))
        let bundledRootBytes = Array(root.fileContents.utf8)
        let packsFolder = scratch.url("device")
        let repository = URL(string: "https://cdn.example.com/course/")!
        let store = AssetStore()
        // As in the README (with a transport that reads the repository folder):
        let installer = try PackInstaller(
            folder: packsFolder, repository: repository, root: try Root(fileContents: bundledRootBytes),
            transport: FolderTransport(folder: scratch.url("repo"), base: repository))
        await installer.attach(store)
        let report = try await installer.makeAvailable(locales: ["ru"])
        #expect(report.installed == ["driving-base", "driving-en (en)", "driving-ru (ru)"], "\(report)")
        #expect(report.pending == nil && report.trustState == .firstRun)
        for path in installer.installedPacks() { _ = try store.mount(contentsOf: URL(fileURLWithPath: path)) }
        try store.setLocale("ru")
        let bank = try QuestionBank.load(id: "driving-rules", from: store.currentView)
        #expect(bank.language == "ru")
        // Again: nothing to do, the packs' real SHA-256 is the catalog's.
        #expect(try await installer.makeAvailable(locales: ["ru"]).unchanged.count == 3)
    }
}
