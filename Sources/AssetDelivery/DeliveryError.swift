import AssetPack
import ErrorReporting
import PackTrust

/// An error of delivery: the origin, the network, the bytes received, the disk, or a refusal of
/// the trust checks underneath (kept as a typed value). Installed packs are never touched by a
/// failed run.
public struct DeliveryError: LibraryError, Equatable {
    /// What went wrong; the raw value is the code's name in the error vocabulary.
    public enum Code: String, Sendable, CaseIterable {
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
    }

    /// What went wrong.
    public var code: Code
    /// What was found and what was expected.
    public var detail: String
    /// The URL or file concerned.
    public var file: String?
    /// The pack (name and locale) concerned.
    public var item: String?
    /// The error underneath, for ``Code/untrusted`` and ``Code/pack``.
    public var underlying: (any LibraryError)?

    /// An error with its code, detail and, when known, where.
    public init(_ code: Code, _ detail: String, file: String? = nil, item: String? = nil, underlying: (any LibraryError)? = nil) {
        self.code = code
        self.detail = detail
        self.file = file
        self.item = item
        self.underlying = underlying
    }

    /// The same code, detail and place.
    public static func == (a: DeliveryError, b: DeliveryError) -> Bool {
        a.code == b.code && a.detail == b.detail && a.file == b.file && a.item == b.item
    }

    /// `AssetDelivery`.
    public static var library: String { "AssetDelivery" }
    /// The code's raw value (`corruptDownload`).
    public var codeName: String { code.rawValue }
    /// The URL or file, and the pack.
    public var location: ErrorLocation { ErrorLocation(file: file, item: item) }
    /// The trust or pack error underneath.
    public var underlyingError: (any LibraryError)? { underlying }

    /// One line: `FILE: PACK: DETAIL`.
    public var description: String {
        [file, item, detail].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ": ").escapingControlCharacters
    }

    static func trust(_ error: TrustError) -> DeliveryError {
        DeliveryError(.untrusted, error.description, underlying: error)
    }

    static func pack(_ error: PackError, item: String? = nil) -> DeliveryError {
        DeliveryError(.pack, error.description, item: item, underlying: error)
    }

    /// A write, sync or rename on the device failed: the system's error is in the `PackError`.
    static func fileSystem(_ error: PackError, item: String? = nil) -> DeliveryError {
        let reason = error.underlying == .noSpace ? "the disk is full: " + error.description : error.description
        return DeliveryError(.fileSystem, reason, item: item, underlying: error)
    }
}
