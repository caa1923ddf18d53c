import AssetLibrary
import AssetPack
import ErrorReporting

/// An error in study content: which file (and line, when known), which item, why, and the
/// pack or store error underneath when reading failed.
public struct ContentError: CodedError, Equatable {
    /// What went wrong: a stable identifier, with an English ``summary`` for messages.
    public enum Code: String, ErrorCode {
        /// The file, or the item asked for, does not exist.
        case notFound
        /// The file exists but could not be read (a damaged pack, an I/O error): see
        /// ``ContentError/underlying``.
        case unreadable
        /// The file is not well-formed (JSON syntax, a missing field, a table row of the wrong
        /// width).
        case malformed
        /// A reference (a picture, a category file) leaves the pack: `..`, an absolute path,
        /// or a hidden file the builder skips.
        case unsafeReference
        /// Two items have the same id.
        case duplicateID
        /// A question has no correct choice, or more than one.
        case correctAnswers
        /// A question has fewer than 2 or more than 6 choices.
        case choiceCount
        /// A text that must say something is empty.
        case emptyText
        /// A picture the content refers to is in neither the pack nor its base.
        case missingPicture
        /// A question of the reference bank has no translation.
        case missingTranslation
        /// A translated question is not in the reference bank.
        case extraTranslation
        /// A question of a bank that requires sources has none.
        case missingSource
        /// A translated question's choices differ from the reference's in number or in which one
        /// is correct (a translation never changes the answer key).
        case answerKeyMismatch
        /// A translated question or category shows another picture than the reference.
        case pictureMismatch

        /// The code in a few English words, as messages show it.
        public var summary: String {
            switch self {
            case .notFound: "not found"
            case .unreadable: "cannot be read"
            case .malformed: "malformed"
            case .unsafeReference: "reference outside the pack"
            case .duplicateID: "duplicate id"
            case .correctAnswers: "needs exactly one correct answer"
            case .choiceCount: "needs 2 to 6 choices"
            case .emptyText: "empty text"
            case .missingPicture: "missing picture"
            case .missingTranslation: "missing translation"
            case .extraTranslation: "translation of an item the reference does not have"
            case .missingSource: "no source"
            case .answerKeyMismatch: "answer key differs from the reference"
            case .pictureMismatch: "picture differs from the reference"
            }
        }
    }

    /// The error underneath a content error: why a file could not be read.
    public enum Cause: ErrorCause, Equatable {
        /// A pack could not be read (a CRC error, an I/O error).
        case pack(PackError)
        /// A store could not answer (its pack could not be read).
        case store(StoreError)

        /// The pack or store error.
        public var libraryError: (any LibraryError)? {
            switch self {
            case .pack(let error): error
            case .store(let error): error
            }
        }
    }

    /// What went wrong.
    public var code: Code
    /// A precise explanation: what was found and expected.
    public var detail: String
    /// The content file (`Banks/driving-rules/parking.json`), the 1-based line in it where the
    /// item or problem is, and the item (question, card, lesson, category) id, those known.
    public var location: ErrorLocation
    /// What failed underneath, for ``Code/unreadable`` (a CRC error in a pack, an I/O error).
    public var underlying: Cause?

    /// Creates an error; `detail` says what was found, `location` the file (and line and item).
    public init(_ code: Code, _ detail: String = "", at location: ErrorLocation = ErrorLocation(), underlying: Cause? = nil) {
        self.code = code
        self.detail = detail
        self.location = location
        self.underlying = underlying
    }
}
