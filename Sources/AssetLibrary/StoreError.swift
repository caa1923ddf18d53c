import AssetPack

/// An error from the asset store: a malformed locale tag, a missing asset, or a pack error.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, Equatable {
        case malformedLocale = "malformed locale tag"
        case notFound = "no such asset"
        case pack = "pack error"
    }

    public var code: Code
    public var detail: String
    /// The asset path or locale tag the error is about.
    public var subject: String?
    /// The underlying pack error, for ``Code/pack``.
    public var packError: PackError?

    public init(_ code: Code, _ detail: String = "", subject: String? = nil, packError: PackError? = nil) {
        self.code = code
        self.detail = detail
        self.subject = subject
        self.packError = packError
    }

    init(_ error: PackError) {
        self.init(.pack, error.description, packError: error)
    }

    public var description: String {
        if let packError { return packError.description }
        var line = code.rawValue
        if let subject { line += " \"\(subject)\"" }
        if !detail.isEmpty { line += ": " + detail }
        return line
    }
}
