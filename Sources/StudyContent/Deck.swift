import Foundation
import SwiftCSV

/// A flash card. Japanese vocabulary cards also carry kanji, kana, romaji and the rest.
public struct Card: Sendable, Hashable, Codable {
    public var id: String
    /// What the card shows first.
    public var front: String
    /// The answer side.
    public var back: String
    public var kanji: String?
    /// The reading in kana.
    public var kana: String?
    public var romaji: String?
    /// Several meanings, the main one first.
    public var meanings: [String]
    public var partOfSpeech: String?
    public var mnemonic: String?
    public var notes: String?
    /// A picture's path in the store (its base name, without scale suffix).
    public var picture: String?

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
    public var id: String
    public var title: String
    public var language: String?
    public var cards: [Card]

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
        throw ContentError(.notFound, file: "Decks/\(id).{json,tsv,csv}", item: id)
    }

    /// Loads the deck file at `path`.
    public static func load(path: String, from source: any ContentSource) throws(ContentError) -> Deck {
        let bytes: [UInt8]
        do {
            guard let found = try source.contents(of: path) else { throw ContentError(.notFound, file: path) }
            bytes = found
        } catch let error as ContentError {
            throw error
        } catch {
            throw ContentError(.notFound, file: path, "\(error)")
        }
        return try decode(bytes, path: path)
    }

    /// Decodes deck bytes; the format follows the extension of `path`.
    public static func decode(_ bytes: [UInt8], path: String) throws(ContentError) -> Deck {
        let name = (path as NSString).lastPathComponent
        let id = (name as NSString).deletingPathExtension
        switch (name as NSString).pathExtension.lowercased() {
        case "json":
            do {
                return try JSONDecoder().decode(Deck.self, from: Data(bytes))
            } catch {
                throw ContentError(.malformed, file: path, describe(error))
            }
        case "tsv", "csv":
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw ContentError(.malformed, file: path, "not UTF-8")
            }
            return try decodeTable(text, delimiter: name.lowercased().hasSuffix("tsv") ? .tab : .comma, id: id, path: path)
        default:
            throw ContentError(.malformed, file: path, "a deck is .json, .tsv or .csv")
        }
    }

    private static func decodeTable(_ text: String, delimiter: CSVDelimiter, id: String, path: String)
        throws(ContentError) -> Deck
    {
        let table: CSV<Named>
        do {
            table = try CSV<Named>(string: text, delimiter: delimiter, loadColumns: false)
        } catch {
            throw ContentError(.malformed, file: path, "\(error)")
        }
        for required in ["id", "front", "back"] where !table.header.contains(required) {
            throw ContentError(.malformed, file: path, "no \"\(required)\" column")
        }
        func optional(_ value: String?) -> String? { value.flatMap { $0.isEmpty ? nil : $0 } }
        let cards = table.rows.map { row in
            Card(
                id: row["id"] ?? "", front: row["front"] ?? "", back: row["back"] ?? "", kanji: optional(row["kanji"]),
                kana: optional(row["kana"]), romaji: optional(row["romaji"]),
                meanings: (row["meanings"] ?? "").split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
                    .filter { !$0.isEmpty },
                partOfSpeech: optional(row["part_of_speech"]), mnemonic: optional(row["mnemonic"]),
                notes: optional(row["notes"]), picture: optional(row["picture"]))
        }
        return Deck(id: id, title: id, cards: cards)
    }
}

/// A decoding error in one line: what is wrong and where in the JSON.
func describe(_ error: any Error) -> String {
    guard let error = error as? DecodingError else { return "\(error)" }
    func at(_ context: DecodingError.Context) -> String {
        let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return path.isEmpty ? "" : " at \(path)"
    }
    switch error {
    case .keyNotFound(let key, let context): return "missing \"\(key.stringValue)\"" + at(context)
    case .typeMismatch(_, let context), .valueNotFound(_, let context): return context.debugDescription + at(context)
    case .dataCorrupted(let context): return "not valid JSON" + at(context)
    @unknown default: return "\(error)"
    }
}
