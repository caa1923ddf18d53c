import ErrorReporting
import StudyProgress

/// An error of progress sync: a stable code, where (the remote object or file), why.
///
/// Whatever the remote sends, a refusal is one of these, and nothing it refused is merged.
public struct SyncError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong. The raw value is stable: scripts and tests may match on it.
    public enum Code: String, Sendable, Equatable, CaseIterable {
        /// A learner key file or printable secret that is not one.
        case malformedKey
        /// The learner key does not open this learner's objects (another key, or another learner's).
        case wrongKey
        /// An object that fails authentication: changed, cut short, copied under another name or
        /// from another learner or device. Refused, never merged.
        case notAuthentic
        /// An authenticated object whose content does not read (written by a broken or newer app).
        case malformedObject
        /// An object larger than sync reads.
        case tooLarge
        /// The store refused the credentials or the request's signature.
        case accessDenied
        /// The object is not there (any more): another device deleted it after this one listed it.
        case notFound
        /// The store answered with an error status.
        case httpStatus
        /// The store could not be reached, or the connection broke.
        case network
        /// The store stopped sending.
        case timeout
        /// The sync was cancelled.
        case cancelled
        /// A folder remote or a backup file could not be read or written.
        case fileSystem
        /// A bad remote address, option or credential setting.
        case invalidArgument
        /// The progress file refused: the `ProgressError` underneath.
        case progress
    }

    /// What went wrong.
    public var code: Code
    /// The remote object, URL or file the error is about.
    public var object: String?
    /// Why, in words.
    public var detail: String
    /// The progress store's error, for ``Code/progress``.
    public var underlying: ProgressError?

    /// An error with its code, its place and the reason.
    public init(_ code: Code, object: String? = nil, _ detail: String, underlying: ProgressError? = nil) {
        self.code = code
        self.object = object
        self.detail = detail
        self.underlying = underlying
    }

    /// The progress store's error, wrapped.
    public init(_ error: ProgressError) {
        self.init(.progress, object: error.path, "", underlying: error)
    }

    /// One line: `OBJECT: code: detail`, then the error underneath. Control characters are
    /// escaped: the detail may quote a store's error text and the object a name from the store,
    /// and the line goes to a terminal.
    public var description: String {
        var parts = [object].compactMap { $0 } + [code.rawValue]
        if !detail.isEmpty { parts.append(detail) }
        var line = parts.joined(separator: ": ")
        if let underlying { line += (detail.isEmpty ? ": " : " (") + underlying.description + (detail.isEmpty ? "" : ")") }
        return Self.escapingControlCharacters(line)
    }

    /// `text` with C0 and C1 controls, DEL and the Unicode direction overrides and isolates as
    /// `\n`, `\r`, `\t` or `\u{…}`: one line, no terminal escape sequence, nothing reordered.
    static func escapingControlCharacters(_ text: String) -> String {
        func isControl(_ scalar: Unicode.Scalar) -> Bool {
            let value = scalar.value
            return value < 0x20 || (0x7F...0x9F).contains(value) || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
        }
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where isControl(scalar): out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

extension SyncError: LibraryError {
    /// `StudySync`.
    public static var library: String { "StudySync" }
    /// The code's raw value.
    public var codeName: String { code.rawValue }
    /// The object or file, as the location's file.
    public var location: ErrorLocation { ErrorLocation(file: object) }
    /// The progress store's error underneath.
    public var underlyingError: (any LibraryError)? { underlying }
}
