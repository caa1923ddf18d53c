import StudyContent
import StudyEngine

/// An error of the progress store or a session: a stable code, where (database path, item), why.
///
/// A damaged database file, one written by a newer version of the schema, a path that is a folder
/// or cannot be written: each is one of these, and the file is left as it was.
public struct ProgressError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong. The raw value (the case's name, as every library's codes are spelled) is
    /// stable: scripts and tests may match on it.
    public enum Code: String, Sendable, Equatable, CaseIterable {
        /// The file is not an SQLite database, or SQLite reports it corrupt.
        case damagedDatabase
        /// The database was written by a newer schema than this library knows.
        case newerSchema
        /// The database path names a folder.
        case isFolder
        /// The database (or its folder) cannot be written.
        case notWritable
        /// Any other SQLite failure, with SQLite's own message.
        case database
        /// No deck or bank with this id in the mounted packs.
        case unknownContent
        /// No item with this id in the deck or bank.
        case unknownItem
        /// An answer the session cannot take (a choice or grade out of range).
        case invalidAnswer
        /// Nothing to undo.
        case nothingToUndo
        /// The scheduler refused the answer or the stored state.
        case engine
        /// The content could not be read from the packs.
        case content
    }

    /// What went wrong.
    public var code: Code
    /// The database file, or the pack or content, the error is about.
    public var path: String?
    /// The item (`source/item`), when the error is about one.
    public var item: String?
    /// Why, in words (empty when the error underneath says it).
    public var detail: String
    /// The error underneath, for ``Code/engine`` and ``Code/content``, kept as a typed value.
    public var underlying: Underlying?

    /// The error of another library that a progress error carries.
    public enum Underlying: Sendable, Equatable {
        /// The scheduler refused the answer or the stored state.
        case engine(StudyEngineError)
        /// The content could not be read or does not hold what was asked for.
        case content(ContentError)
    }

    /// An error with its code, its place and the reason.
    public init(_ code: Code, path: String? = nil, item: String? = nil, _ detail: String, underlying: Underlying? = nil) {
        self.code = code
        self.path = path
        self.item = item
        self.detail = detail
        self.underlying = underlying
    }

    /// One line: `PATH: ITEM: code: detail`, with the parts that apply, then the error underneath.
    public var description: String {
        var parts = [path, item].compactMap { $0 } + [code.rawValue]
        if !detail.isEmpty { parts.append(detail) }
        switch underlying {
        case .engine(let error): parts.append(error.description)
        case .content(let error): parts.append(error.description)
        case nil: break
        }
        return parts.joined(separator: ": ")
    }

    /// The scheduler's refusal, about `item`.
    init(_ error: StudyEngineError, item: String? = nil) {
        self.init(.engine, item: item, "", underlying: .engine(error))
    }

    /// Content that could not be read.
    init(_ error: ContentError) {
        self.init(.content, "", underlying: .content(error))
    }
}
