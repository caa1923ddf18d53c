import AssetPack

/// An error from the asset store: a malformed locale tag, a missing asset, or a pack error.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong: a stable identifier, with an English ``summary`` for messages.
    public enum Code: String, Sendable, Equatable, CaseIterable {
        /// A locale tag (given, or in a mounted pack's index) is not well-formed BCP 47.
        case malformedLocale
        /// No mounted pack has the asset.
        case notFound
        /// A pack could not be opened or read: see ``StoreError/packError``.
        case pack

        /// The code in a few English words, as messages show it.
        public var summary: String {
            switch self {
            case .malformedLocale: "malformed locale tag"
            case .notFound: "no such asset"
            case .pack: "pack error"
            }
        }
    }

    /// What went wrong.
    public var code: Code
    /// A precise explanation.
    public var detail: String
    /// The asset path or locale tag the error is about (for a pack's malformed locale, the pack).
    public var subject: String?
    /// The underlying pack error, for ``Code/pack``.
    public var packError: PackError?

    /// Creates an error; `detail` says what was found.
    public init(_ code: Code, _ detail: String = "", subject: String? = nil, packError: PackError? = nil) {
        self.code = code
        self.detail = detail
        self.subject = subject
        self.packError = packError
    }

    init(_ error: PackError) {
        self.init(.pack, error.description, packError: error)
    }

    /// One line: the pack error's own, or `SUMMARY "SUBJECT": DETAIL`, control characters escaped.
    public var description: String {
        if let packError { return packError.description }
        var line = code.summary
        if let subject { line += " \"\(subject.escapingControlCharacters)\"" }
        if !detail.isEmpty { line += ": " + detail.escapingControlCharacters }
        return line
    }
}
