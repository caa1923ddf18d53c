import AssetPack
import Foundation

/// A flash card. Japanese vocabulary cards also carry kanji, kana, romaji and the rest.
public struct Card: Sendable, Hashable, Codable {
    /// The card's id, unique in its deck and the same in every translation.
    public var id: String
    /// What the card shows first.
    public var front: String
    /// The answer side.
    public var back: String
    /// The word in kanji (empty for words written in kana).
    public var kanji: String?
    /// The reading in kana.
    public var kana: String?
    /// The reading in Latin letters (Hepburn).
    public var romaji: String?
    /// Several meanings, the main one first.
    public var meanings: [String]
    /// The part of speech (`noun`, `verb`, `i-adjective`, …).
    public var partOfSpeech: String?
    /// A memory aid.
    public var mnemonic: String?
    /// Usage, politeness or counter notes.
    public var notes: String?
    /// A picture's path in the store (its base name, without scale suffix).
    public var picture: String?

    /// A card; only `id`, `front` and `back` are required.
    public init(
        id: String, front: String, back: String, kanji: String? = nil, kana: String? = nil, romaji: String? = nil,
        meanings: [String] = [], partOfSpeech: String? = nil, mnemonic: String? = nil, notes: String? = nil,
        picture: String? = nil
    ) {
        self.id = id
        self.front = front
        self.back = back
        self.kanji = kanji
        self.kana = kana
        self.romaji = romaji
        self.meanings = meanings
        self.partOfSpeech = partOfSpeech
        self.mnemonic = mnemonic
        self.notes = notes
        self.picture = picture
    }

    enum CodingKeys: String, CodingKey {
        case id, front, back, kanji, kana, romaji, meanings, partOfSpeech, mnemonic, notes, picture
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        front = try container.decode(String.self, forKey: .front)
        back = try container.decode(String.self, forKey: .back)
        kanji = try container.decodeIfPresent(String.self, forKey: .kanji)
        kana = try container.decodeIfPresent(String.self, forKey: .kana)
        romaji = try container.decodeIfPresent(String.self, forKey: .romaji)
        meanings = try container.decodeIfPresent([String].self, forKey: .meanings) ?? []
        partOfSpeech = try container.decodeIfPresent(String.self, forKey: .partOfSpeech)
        mnemonic = try container.decodeIfPresent(String.self, forKey: .mnemonic)
        notes = try container.decodeIfPresent(String.self, forKey: .notes)
        picture = try container.decodeIfPresent(String.self, forKey: .picture)
    }
}

/// A deck of cards, from `Decks/ID.json`, `Decks/ID.tsv` or `Decks/ID.csv`.
///
/// JSON: `{"id", "title", "language", "cards": [Card]}`. TSV/CSV: a header row naming the
/// columns `id, front, back, kanji, kana, romaji, meanings, part_of_speech, mnemonic, notes,
/// picture` (any order; only `id`, `front`, `back` required), meanings separated by `; `.
public struct Deck: Sendable, Hashable, Codable {
    /// The deck's id (its file's base name).
    public var id: String
    /// The deck's title.
    public var title: String
    /// The language of the deck's text (BCP 47), when it says.
    public var language: String?
    /// The cards, in order.
    public var cards: [Card]

    /// A deck of `cards`.
    public init(id: String, title: String, language: String? = nil, cards: [Card]) {
        self.id = id
        self.title = title
        self.language = language
        self.cards = cards
    }

    /// The file extensions a deck can have, in the order they are tried.
    public static let extensions = ["json", "tsv", "csv"]

    /// Loads deck `id` from `source` (through a store, the locale chain picks the file).
    public static func load(id: String, from source: any ContentSource) throws(ContentError) -> Deck {
        for ext in extensions {
            let path = "Decks/\(id).\(ext)"
            if source.contains(path) { return try load(path: path, from: source) }
        }
        throw ContentError(.notFound, at: .file("Decks/\(id).{json,tsv,csv}", item: id))
    }

    /// Loads the deck file at `path`.
    public static func load(path: String, from source: any ContentSource) throws(ContentError) -> Deck {
        try ContentPath.check(path, file: path, item: nil)
        guard let data = try source.data(atPath: path) else { throw ContentError(.notFound, at: .file(path)) }
        return try decode(data, path: path)
    }

    /// Decodes deck bytes; the format follows the extension of `path`.
    public static func decode(_ data: PackData, path: String) throws(ContentError) -> Deck {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let dot = name.lastIndex(of: ".")
        let id = dot.map { String(name[..<$0]) } ?? name
        switch dot.map({ name[name.index(after: $0)...].lowercased() }) {
        case "json":
            return try ContentDecoding.decode(Deck.self, from: data, file: path)
        case "tsv", "csv":
            guard let text = String(validating: data, as: UTF8.self) else {
                throw ContentError(.malformed, "not UTF-8", at: .file(path))
            }
            return try decodeTable(text, delimiter: name.lowercased().hasSuffix("tsv") ? "\t" : ",", id: id, path: path)
        default:
            throw ContentError(.malformed, "a deck is .json, .tsv or .csv", at: .file(path))
        }
    }

    /// Decodes deck bytes held in an array.
    public static func decode(_ bytes: [UInt8], path: String) throws(ContentError) -> Deck {
        try decode(PackData(copying: bytes), path: path)
    }

    private static func decodeTable(_ text: String, delimiter: Unicode.Scalar, id: String, path: String)
        throws(ContentError) -> Deck
    {
        let table = try DelimitedText(text, delimiter: delimiter, file: path)
        for required in ["id", "front", "back"] where !table.header.contains(required) {
            throw ContentError(.malformed, "no \"\(required)\" column", at: .file(path, line: 1))
        }
        let columns = Dictionary(table.header.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        let cards = table.records.map { record in
            func value(_ column: String) -> String? {
                columns[column].map { record.fields[$0] }.flatMap { $0.isEmpty ? nil : $0 }
            }
            return Card(
                id: value("id") ?? "", front: value("front") ?? "", back: value("back") ?? "", kanji: value("kanji"),
                kana: value("kana"), romaji: value("romaji"),
                meanings: (value("meanings") ?? "").split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
                    .filter { !$0.isEmpty },
                partOfSpeech: value("part_of_speech"), mnemonic: value("mnemonic"), notes: value("notes"),
                picture: value("picture"))
        }
        return Deck(id: id, title: id, cards: cards)
    }

    /// The line each card starts on in the deck file `data` at `path`, in card order, for
    /// messages.
    static func cardLines(_ data: PackData, path: String) -> [Int] {
        if path.lowercased().hasSuffix(".json") {
            guard let tree = try? JSONValue.parse(data), case .array(let cards)? = tree["cards"]?.kind else { return [] }
            return cards.map(\.line)
        }
        guard let text = String(validating: data, as: UTF8.self),
            let table = try? DelimitedText(text, delimiter: path.lowercased().hasSuffix(".tsv") ? "\t" : ",", file: path)
        else { return [] }
        return table.records.map(\.line)
    }
}
