import AssetPack
import ErrorReporting
import PackTrust

/// An error of delivery: the origin, the network, the bytes received, the disk, or a refusal of
/// the trust checks underneath (kept as a typed value). Installed packs are never touched by a
/// failed run.
public struct DeliveryError: CodedError, Equatable {
    /// What went wrong; the raw value is the code's name in the error vocabulary.
    public enum Code: String, ErrorCode {
        /// The request failed: no connection, a dropped connection, a bad URL.
        case network
        /// The origin did not answer in time.
        case timeout
        /// The origin answered with a status the client cannot use (404, 500, …).
        case httpStatus
        /// The origin sent more bytes than the catalog or the range says the file has.
        case tooMuchData
        /// Bytes received are not the published ones (an entry's or the file's SHA-256).
        case corruptDownload
        /// The catalog or a root was refused: the `TrustError` underneath says why.
        case untrusted
        /// A pack could not be read: the `PackError` underneath says why.
        case pack
        /// The disk refused a write, a sync or a rename (full, read-only).
        case fileSystem
        /// No pack of the catalog is named or has the locale asked for.
        case notInCatalog
        /// The task was cancelled; what was fetched and verified is kept for the next run.
        case cancelled
        /// Another installer holds the folder (a second process, or a second installer in this
        /// one): one installer per folder.
        case busy

        /// The code in a few English words, as messages show it.
        public var summary: String {
            switch self {
            case .network: "network error"
            case .timeout: "timed out"
            case .httpStatus: "unexpected HTTP status"
            case .tooMuchData: "too much data"
            case .corruptDownload: "corrupt download"
            case .untrusted: "refused"
            case .pack: "pack error"
            case .fileSystem: "cannot write to the device"
            case .notInCatalog: "not in the catalog"
            case .cancelled: "cancelled"
            case .busy: "busy"
            }
        }
    }

    /// The error underneath a delivery error: a refusal of the trust checks, or a pack that
    /// could not be read or written (its `Errno` inside, for the disk).
    public enum Cause: ErrorCause, Equatable {
        /// The catalog or a root was refused, for ``Code/untrusted``.
        case trust(TrustError)
        /// A pack could not be read, or the disk refused a write, for ``Code/pack`` and
        /// ``Code/fileSystem``.
        case pack(PackError)

        /// The trust or pack error.
        public var libraryError: (any LibraryError)? {
            switch self {
            case .trust(let error): error
            case .pack(let error): error
            }
        }
    }

    /// What went wrong.
    public var code: Code
    /// What was found and what was expected.
    public var detail: String
    /// The URL or file concerned (`file`) and the pack, by name and locale (`item`).
    public var location: ErrorLocation
    /// The error underneath, for ``Code/untrusted``, ``Code/pack`` and ``Code/fileSystem``.
    public var underlying: Cause?

    /// An error with its code, detail and, when known, where and the error underneath.
    public init(_ code: Code, _ detail: String = "", at location: ErrorLocation = ErrorLocation(), underlying: Cause? = nil) {
        self.code = code
        self.detail = detail
        self.location = location
        self.underlying = underlying
    }

    /// `AssetDelivery`.
    public static var library: String { "AssetDelivery" }

    static func trust(_ error: TrustError) -> DeliveryError {
        DeliveryError(.untrusted, underlying: .trust(error))
    }

    static func pack(_ error: PackError, item: String? = nil) -> DeliveryError {
        DeliveryError(.pack, at: .item(item), underlying: .pack(error))
    }

    /// A write, sync or rename on the device failed: the system's error is in the `PackError`.
    static func fileSystem(_ error: PackError, item: String? = nil) -> DeliveryError {
        DeliveryError(.fileSystem, error.underlying == .noSpace ? "the disk is full" : "", at: .item(item), underlying: .pack(error))
    }
}
