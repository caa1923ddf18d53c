/// An error in study content: which file, which item, and why.
public struct ContentError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, Equatable {
        case notFound = "not found"
        case malformed = "malformed"
        case duplicateID = "duplicate id"
        case correctAnswers = "needs exactly one correct answer"
        case choiceCount = "needs 2 to 6 choices"
        case emptyText = "empty text"
        case missingPicture = "missing picture"
        case missingTranslation = "missing translation"
        case extraTranslation = "translation of an item the reference does not have"
    }

    public var code: Code
    /// The content file (`Banks/driving-rules/parking.json`).
    public var file: String
    /// The item (question, card, lesson, category) id, when the error is about one.
    public var item: String?
    public var detail: String

    public init(_ code: Code, file: String, item: String? = nil, _ detail: String = "") {
        self.code = code
        self.file = file
        self.item = item
        self.detail = detail
    }

    /// `FILE: ITEM: reason: detail`.
    public var description: String {
        var parts = [file]
        if let item { parts.append(item) }
        parts.append(detail.isEmpty ? code.rawValue : "\(code.rawValue): \(detail)")
        return parts.joined(separator: ": ")
    }
}
