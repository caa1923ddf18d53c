import AssetPack
import ErrorReporting

/// An error from the asset store: a malformed locale tag, a missing asset, or a pack error.
///
/// Its ``location`` names the asset asked for or the locale tag (`item`), or the pack whose
/// index names a malformed locale (`file`); for ``Code/pack``, the place of the `PackError`
/// underneath.
public struct StoreError: CodedError, Equatable {
    /// What went wrong: a stable identifier, with an English ``summary`` for messages.
    public enum Code: String, ErrorCode {
        /// A locale tag (given, or in a mounted pack's index) is not well-formed BCP 47.
        case malformedLocale
        /// No mounted pack has the asset.
        case notFound
        /// A pack could not be opened or read: see ``StoreError/underlying``.
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
    /// The asset path or locale tag the error is about (`item`), the pack whose index names a
    /// malformed locale (`file`), or for ``Code/pack`` the pack error's place.
    public var location: ErrorLocation
    /// The underlying pack error, for ``Code/pack``.
    public var underlying: PackError?

    /// Creates an error; `detail` says what was found.
    public init(_ code: Code, _ detail: String = "", at location: ErrorLocation = ErrorLocation(), underlying: PackError? = nil) {
        self.code = code
        self.detail = detail
        self.location = location
        self.underlying = underlying
    }

    /// A pack that could not be opened or read, at the pack error's place.
    init(_ error: PackError) {
        self.init(.pack, at: error.location, underlying: error)
    }
}
