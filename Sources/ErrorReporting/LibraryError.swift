/// The shape every error of this package's libraries has: a stable code from one vocabulary,
/// where it happened, what was found, and the library error underneath kept as a typed value.
///
/// `PackError`, `StoreError`, `ContentError`, `StudyEngineError` and `ProgressError` conform, so
/// a tool prints any of them through one path (``ErrorReport``) and a script matches on
/// ``codeName`` (`crcMismatch`, `gradeOutOfRange`, `damagedDatabase`): lowerCamelCase words that never
/// change meaning once released. The README's error table lists the whole vocabulary.
public protocol LibraryError: Error, Sendable, CustomStringConvertible {
    /// The library that raised the error (`AssetPack`, `AssetLibrary`, `StudyContent`,
    /// `StudyEngine`, `StudyProgress`).
    static var library: String { get }
    /// The error's code as the vocabulary spells it (its `code`'s raw value); stable across
    /// releases.
    var codeName: String { get }
    /// Where it happened: the fields that apply to this error, the others `nil`.
    var location: ErrorLocation { get }
    /// What was found and what was expected, in words; empty when the code says it all.
    var detail: String { get }
    /// The library error underneath (a pack's CRC error under a bank that cannot be read), or
    /// `nil` when this error is where the problem is.
    var underlyingError: (any LibraryError)? { get }
}

/// Where an error happened; each error fills in the fields that apply to it.
public struct ErrorLocation: Sendable, Hashable {
    /// The file: a pack, a source folder or file, a content file, a review log, a database.
    public var file: String?
    /// The 1-based line (or row) in a text file.
    public var line: Int?
    /// The entry or asset path inside a pack.
    public var entry: String?
    /// The byte offset in the file.
    public var offset: UInt64?
    /// The content item (a question, card, lesson or category id; `source/item` in progress),
    /// or what else the error names: a locale tag, an asset asked for.
    public var item: String?
    /// The field or column (a review-log column, a card state's field).
    public var field: String?

    /// A location with the fields that apply.
    public init(
        file: String? = nil, line: Int? = nil, entry: String? = nil, offset: UInt64? = nil, item: String? = nil,
        field: String? = nil
    ) {
        self.file = file
        self.line = line
        self.entry = entry
        self.offset = offset
        self.item = item
        self.field = field
    }

    /// Whether no field is set.
    public var isEmpty: Bool { self == ErrorLocation() }
}

extension LibraryError {
    /// This error and the ones underneath it, outermost first.
    public var chain: [any LibraryError] {
        var errors: [any LibraryError] = [self]
        while let next = errors[errors.count - 1].underlyingError, errors.count < 16 { errors.append(next) }
        return errors
    }

    /// The innermost error: where the problem really is.
    public var rootCause: any LibraryError { chain[chain.count - 1] }
}
