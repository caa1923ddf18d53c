/// The shape every error of this package's libraries has: a stable code from one vocabulary,
/// where it happened, what was found, and the library error underneath kept as a typed value.
///
/// Every library's error type conforms: `PackError` (AssetPack), `StoreError` (AssetLibrary),
/// `TrustError` (PackTrust), `DeliveryError` (AssetDelivery), `ContentError` (StudyContent),
/// `StudyEngineError` (StudyEngine), `ReviewLogError` (StudyResearch), `ProgressError`
/// (StudyProgress) and `SyncError` (StudySync), each through ``CodedError``, which stores
/// exactly these parts. A tool prints any of them through one path (``ErrorReport``) and a script
/// matches on ``codeName`` (`crcMismatch`, `gradeOutOfRange`, `damagedDatabase`): lowerCamelCase
/// words that never change meaning once released. The README's error table lists the whole
/// vocabulary.
public protocol LibraryError: ErrorCause, Error, Sendable, CustomStringConvertible {
    /// The library that raised the error (`AssetPack`, `AssetLibrary`, `PackTrust`,
    /// `AssetDelivery`, `StudyContent`, `StudyEngine`, `StudyResearch`, `StudyProgress`,
    /// `StudySync`).
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

extension LibraryError {
    /// This error and the ones underneath it, outermost first.
    public var chain: [any LibraryError] {
        var errors: [any LibraryError] = [self]
        while let next = errors[errors.count - 1].underlyingError, errors.count < 16 { errors.append(next) }
        return errors
    }

    /// The innermost error: where the problem really is.
    public var rootCause: any LibraryError { chain[chain.count - 1] }

    /// The error itself: a library error is the library error underneath the one that wraps it.
    public var libraryError: (any LibraryError)? { self }
}
