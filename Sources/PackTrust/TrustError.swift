import ErrorReporting

/// An error of signing and trust: a key, signature, root or catalog that is malformed or does
/// not verify, or an update a client must refuse. Each says what failed and in which file.
public struct TrustError: LibraryError, Equatable {
    /// What went wrong; the raw value is the code's name in the error vocabulary.
    public enum Code: String, Sendable, CaseIterable {
        /// A public or secret key file or string that is not minisign's format.
        case malformedKey
        /// A secret key encrypted with a password (packtool reads unencrypted keys).
        case encryptedKey
        /// A signature file that is not minisign's format.
        case malformedSignature
        /// The signature was made by another key than the one given.
        case keyMismatch
        /// The signature does not verify: the file or the signature changed.
        case badSignature
        /// The trusted comment's signature does not verify: the comment or the signature changed.
        case badTrustedComment
        /// A root (`root.json`) that is malformed or inconsistent (threshold, keys, version).
        case malformedRoot
        /// A root not signed by a threshold of its own keys and, for a new root, of the previous one's.
        case untrustedRoot
        /// The newest root has expired.
        case expiredRoot
        /// A catalog that is malformed: bad JSON, duplicate keys, missing fields, numbers out of range.
        case malformedCatalog
        /// A catalog not signed by a threshold of the current root's keys.
        case untrustedCatalog
        /// A catalog older than one already accepted (a rollback).
        case rollback
        /// A catalog with the version of one already accepted but other bytes.
        case catalogChanged
        /// A catalog that expired before the update started (a freeze).
        case expiredCatalog
        /// A file larger than the limit for its kind (a catalog over 16 MiB).
        case tooLarge
        /// A pack path in a catalog that could leave the repository folder.
        case unsafePath
        /// A pack whose file SHA-256 or digest differs from the catalog's (mix-and-match).
        case packMismatch
        /// A catalog version not greater than the one already published.
        case versionNotNewer
        /// A file that would be overwritten (keys are never overwritten).
        case fileExists
        /// A file that cannot be read or written.
        case fileUnreadable
        /// A trust state file that is malformed.
        case malformedState
        /// An argument out of range (a threshold, an expiry).
        case invalidArgument
    }

    /// What went wrong.
    public var code: Code
    /// What was found and what was expected.
    public var detail: String
    /// The file the error is about (a key, signature, root, catalog or pack).
    public var file: String?
    /// What in it: `signature`, `trusted comment`, `packs[3].path`, a pack's name.
    public var field: String?

    /// An error with its code, detail and, when known, the file and field.
    public init(_ code: Code, _ detail: String, file: String? = nil, field: String? = nil) {
        self.code = code
        self.detail = detail
        self.file = file
        self.field = field
    }

    /// `PackTrust`.
    public static var library: String { "PackTrust" }
    /// The code's raw value (`rollback`).
    public var codeName: String { code.rawValue }
    /// The file and the field.
    public var location: ErrorLocation { ErrorLocation(file: file, field: field) }
    /// `nil`: a trust error is where the problem is.
    public var underlyingError: (any LibraryError)? { nil }

    /// One line: `FILE: FIELD: DETAIL`, control characters dropped.
    public var description: String {
        let parts = [file, field, detail].compactMap { $0 }.filter { !$0.isEmpty }
        return String(parts.joined(separator: ": ").unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F })
    }

    /// The same error about `file`, unless it already names one.
    public func at(file: String) -> TrustError {
        // (A file already named is kept: it is the more precise one.)
        var located = self
        if located.file == nil { located.file = file }
        return located
    }
}
