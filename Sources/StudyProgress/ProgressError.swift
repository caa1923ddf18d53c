import StudyContent
import StudyEngine

/// An error of the progress store or a session: a stable code, where (database path, item), why.
///
/// A damaged database file, one written by a newer version of the schema, a path that is a folder
/// or cannot be written: each is one of these, and the file is left as it was.
public struct ProgressError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong. The raw value is stable: scripts and tests may match on it.
    public enum Code: String, Sendable, Equatable, CaseIterable {
        /// The file is not an SQLite database, or SQLite reports it corrupt.
        case damagedDatabase = "damaged-database"
        /// The database was written by a newer schema than this library knows.
        case newerSchema = "newer-schema"
        /// The database path names a folder.
        case isFolder = "is-folder"
        /// The database (or its folder) cannot be written.
        case notWritable = "not-writable"
        /// Any other SQLite failure, with SQLite's own message.
        case database = "database"
        /// No deck or bank with this id in the mounted packs.
        case unknownContent = "unknown-content"
        /// No item with this id in the deck or bank.
        case unknownItem = "unknown-item"
        /// An answer the session cannot take (a choice or grade out of range).
        case invalidAnswer = "invalid-answer"
        /// Nothing to undo.
        case nothingToUndo = "nothing-to-undo"
        /// The scheduler refused the answer or the stored state.
        case engine = "engine"
        /// The content could not be read from the packs.
        case content = "content"
    }

    /// What went wrong.
    public var code: Code
    /// The database file, or the pack or content, the error is about.
    public var path: String?
    /// The item (`source/item`), when the error is about one.
    public var item: String?
    /// Why, in words.
    public var detail: String

    /// An error with its code, its place and the reason.
    public init(_ code: Code, path: String? = nil, item: String? = nil, _ detail: String) {
        self.code = code
        self.path = path
        self.item = item
        self.detail = detail
    }

    /// One line: `PATH: ITEM: code: detail`, with the parts that apply.
    public var description: String {
        ([path, item].compactMap { $0 } + [code.rawValue, detail]).joined(separator: ": ")
    }

    init(_ error: StudyEngineError, item: String? = nil) {
        self.init(.engine, item: item, error.description)
    }

    init(_ error: ContentError) {
        self.init(.content, error.description)
    }
}
