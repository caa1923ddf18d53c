import AssetLibrary
import AssetPack
import Foundation
import TestSupport
import Testing

@testable import StudyContent

/// The repository's root, for the real content in Packs/.
let repositoryRoot = Repository.root

extension Scratch {
    /// Packs a folder of Packs/ the way packtool does (its .pack.json locale) and returns the path.
    func packReal(_ name: String) throws -> String {
        let source = repositoryRoot + "/Packs/" + name
        let settings = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: source + "/.pack.json"))) as? [String: Any]
        var builder = PackBuilder(options: .init(name: name, locale: settings?["locale"] as? String))
        try builder.addDirectory(atPath: source)
        try builder.write(to: path + "/" + name + ".pack")
        return path + "/" + name + ".pack"
    }
}

@Suite("Decks and banks from the real packs")
struct RealContentTests {
    @Test("the JLPT N5 deck decodes from TSV: 120 cards with kanji, kana, romaji and meanings")
    func japaneseDeck() throws {
        let scratch = try Scratch()
        let pack = try Pack(path: scratch.packReal("japanese-n5"))
        let deck = try Deck.load(id: "jlpt-n5-vocabulary", from: pack)
        #expect(deck.cards.count == 120)
        #expect(Set(deck.cards.map(\.id)).count == 120)
        let water = try #require(deck.cards.first { $0.id == "n5-042" })
        #expect(water.front == "水")
        #expect(water.kana == "みず")
        #expect(water.romaji == "mizu")
        #expect(water.partOfSpeech == "noun")
        #expect(deck.cards.allSatisfy { !$0.meanings.isEmpty && $0.meanings[0] == $0.back && $0.kana != nil && $0.romaji != nil })
        #expect(deck.cards.filter { $0.mnemonic != nil }.count >= 60)
        #expect(ContentValidator(content: pack).validate().isEmpty)
    }

    @Test("the N5 deck writes counters with 〜, gives 今 and 毎日 their adverb use, 勉強 its する, romaji without macrons")
    func japaneseConventions() throws {
        let scratch = try Scratch()
        let deck = try Deck.load(id: "jlpt-n5-vocabulary", from: try Pack(path: scratch.packReal("japanese-n5")))
        let counters = deck.cards.filter { $0.partOfSpeech == "counter" }
        #expect(Set(counters.map(\.front)).isSuperset(of: ["〜時", "〜分", "〜円"]))
        #expect(counters.allSatisfy { $0.front.hasPrefix("〜") && ($0.kana ?? "").hasPrefix("〜") && !($0.romaji ?? "").contains("〜") })
        for word in ["今", "毎日"] {
            #expect(deck.cards.first { $0.front == word }?.partOfSpeech == "noun; adverb", "\(word)")
        }
        #expect(deck.cards.first { $0.front == "勉強" }?.partOfSpeech == "noun; する verb")
        // Hepburn without macrons: long vowels as spelled in kana (kyou, juu), never ō or ū.
        #expect(deck.cards.allSatisfy { ($0.romaji ?? "").allSatisfy { $0.isASCII } })
    }

    @Test("the letter decks decode from JSON and their pictures exist at @1x, @2x and @3x")
    func letterDecks() throws {
        let scratch = try Scratch()
        let pack = try Pack(path: scratch.packReal("letters"))
        let latin = try Deck.load(id: "latin-letters", from: pack)
        let cyrillic = try Deck.load(id: "cyrillic-letters", from: pack)
        #expect(latin.cards.count == 26)
        #expect(cyrillic.cards.count == 33)
        let store = try AssetStore()
        try store.mount(pack, priority: 0)
        for card in latin.cards + cyrillic.cards {
            let picture = try #require(card.picture)
            for scale in 1...3 { #expect(store.image(named: picture, scale: scale)?.scale == scale, "\(picture) @\(scale)x") }
        }
        #expect(pack.files(inDirectory: "Strokes/latin").count == 26)
        #expect(pack.files(inDirectory: "Strokes/cyrillic").count == 33)
        #expect(ContentValidator(content: pack).validate().isEmpty)
    }

    @Test("the 600-question synthetic bank generates, packs, opens and decodes")
    func syntheticBank() throws {
        let scratch = try Scratch()
        let folder = scratch.path + "/synthetic"
        let generated = try run(repositoryRoot + "/Scripts/generate-synthetic-bank", [folder])
        #expect(generated.status == 0, "\(generated.stderr)")
        var builder = PackBuilder(options: .init(name: "synthetic", locale: "en"))
        try builder.addDirectory(atPath: folder)
        try builder.write(to: scratch.path + "/synthetic.pack")
        let pack = try Pack(path: scratch.path + "/synthetic.pack")
        let bank = try QuestionBank.load(id: "synthetic", from: pack)
        #expect(bank.isSynthetic)
        #expect(bank.questions.count == 600)
        #expect(bank.categories.count == 16)
        #expect(Set(bank.questions.map(\.id)).count == 600)
        #expect(ContentValidator(content: pack).validate().isEmpty)
    }
}

@Suite("Decoding through the locale chain")
struct LocaleChainDecodingTests {
    static func category(_ id: String, prompt: String) -> String {
        """
        {"id": "\(id)", "title": "\(id)", "lessons": [{"id": "\(id)-l", "title": "t", "intro": "i",
          "questions": [{"id": "\(id)-q1", "prompt": "\(prompt)", "choices": [{"text": "a", "correct": true}, {"text": "b", "correct": false}], "explanation": "e"}]}]}
        """
    }

    @Test("a category missing from the locale pack falls back to the development locale, file by file")
    func fallbackPerFile() throws {
        let scratch = try Scratch()
        let store = try AssetStore(developmentLocale: "en")
        let index = #"{"id": "b", "title": "T", "language": "en", "categories": ["one", "two"]}"#
        try store.mount(
            path: scratch.pack("en", locale: "en", files: [
                "Banks/b/bank.json": index, "Banks/b/one.json": Self.category("one", prompt: "one?"),
                "Banks/b/two.json": Self.category("two", prompt: "two?"),
            ]), priority: 100)
        try store.mount(
            path: scratch.pack("pt", locale: "pt", files: [
                "Banks/b/bank.json": index.replacingOccurrences(of: "\"en\"", with: "\"pt\""),
                "Banks/b/one.json": Self.category("one", prompt: "um?"),
            ]), priority: 100)
        try store.setLocale("pt-BR")
        let bank = try QuestionBank.load(id: "b", from: store.currentView)
        #expect(bank.language == "pt")
        #expect(bank.questions.map(\.prompt) == ["um?", "two?"])
        try store.setLocale("ja")
        #expect(try QuestionBank.load(id: "b", from: store.currentView).questions.map(\.prompt) == ["one?", "two?"])
    }
}
