import ErrorReporting

/// An error of signing and trust: a key, signature, root or catalog that is malformed or does
/// not verify, or an update a client must refuse. Each says what failed and in which file (its
/// ``location``: the file and the field).
public struct TrustError: CodedError, Equatable {
    /// What went wrong; the raw value is the code's name in the error vocabulary.
    public enum Code: String, ErrorCode {
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

        /// The code in a few English words, as messages show it.
        public var summary: String {
            switch self {
            case .malformedKey: "malformed key"
            case .encryptedKey: "encrypted key"
            case .malformedSignature: "malformed signature"
            case .keyMismatch: "signed by another key"
            case .badSignature: "bad signature"
            case .badTrustedComment: "bad trusted comment"
            case .malformedRoot: "malformed root"
            case .untrustedRoot: "untrusted root"
            case .expiredRoot: "expired root"
            case .malformedCatalog: "malformed catalog"
            case .untrustedCatalog: "untrusted catalog"
            case .rollback: "rollback"
            case .catalogChanged: "catalog changed"
            case .expiredCatalog: "expired catalog"
            case .tooLarge: "too large"
            case .unsafePath: "unsafe path"
            case .packMismatch: "pack differs from the catalog"
            case .versionNotNewer: "version not newer"
            case .fileExists: "file exists"
            case .fileUnreadable: "cannot read or write the file"
            case .malformedState: "malformed trust state"
            case .invalidArgument: "invalid argument"
            }
        }
    }

    /// What went wrong.
    public var code: Code
    /// What was found and what was expected.
    public var detail: String
    /// The file the error is about (a key, signature, root, catalog or pack) and what in it
    /// (`field`): `signature`, `trusted comment`, `packs[3].path`, a pack's name.
    public var location: ErrorLocation
    /// Always `nil`: a trust error is where the problem is.
    public var underlying: Never?

    /// An error with its code, detail and, when known, the file and field.
    public init(_ code: Code, _ detail: String = "", at location: ErrorLocation = ErrorLocation(), underlying: Never? = nil) {
        self.code = code
        self.detail = detail
        self.location = location
        self.underlying = underlying
    }

    /// `PackTrust`.
    public static var library: String { "PackTrust" }
}
