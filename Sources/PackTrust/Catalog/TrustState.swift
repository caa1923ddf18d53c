import AssetPack
import Foundation

/// What a client keeps between updates, and re-verifies from the root the app ships every time
/// it is read: the roots it walked to (each file's bytes as verified) and the last catalog it
/// accepted (its bytes and signatures). Nothing in it is taken on trust: a root that does not
/// follow from the one before, or a catalog whose signatures do not verify, is dropped, never
/// obeyed (see ``CatalogVerifier/restore(_:)``).
public struct TrustState: Sendable, Equatable {
    /// The last catalog accepted.
    public struct AcceptedCatalog: Sendable, Equatable {
        /// `catalog.json`'s bytes.
        public var bytes: [UInt8]
        /// `catalog.json.minisig`'s bytes.
        public var signatures: [UInt8]

        /// A catalog and its signatures.
        public init(bytes: [UInt8], signatures: [UInt8]) {
            self.bytes = bytes
            self.signatures = signatures
        }
    }

    /// Roots newer than the one the app ships, in version order.
    public var roots: [Root]
    /// The last catalog accepted: the floor against rollback, and what an interrupted update
    /// finishes even when the origin serves something older.
    public var catalog: AcceptedCatalog?

    /// A state; the default remembers nothing (a first run).
    public init(roots: [Root] = [], catalog: AcceptedCatalog? = nil) {
        self.roots = roots
        self.catalog = catalog
    }

    /// The largest state file read: a catalog, its signatures and a few roots.
    public static let maxFileSize = Catalog.maxFileSize + 8 << 20

    /// The state file: JSON; each root and the catalog kept as the text that was verified.
    public var fileContents: [UInt8] {
        var text = "{\"format\":2,\"roots\":["
        text += roots.map { JSONEscape.quoted($0.fileContents) }.joined(separator: ",")
        text += "]"
        if let catalog {
            text += ",\"catalog\":" + JSONEscape.quoted(String(decoding: catalog.bytes, as: UTF8.self))
            text += ",\"signatures\":" + JSONEscape.quoted(String(decoding: catalog.signatures, as: UTF8.self))
        }
        return Array((text + "}\n").utf8)
    }

    /// Reads a state file (its shape only; ``CatalogVerifier/restore(_:)`` verifies it).
    public init(fileContents bytes: [UInt8]) throws(TrustError) {
        guard bytes.count <= Self.maxFileSize else {
            throw TrustError(.tooLarge, "a state file is at most \(Self.maxFileSize) bytes, this one \(bytes.count)")
        }
        let document = try JSONText.parse(bytes, code: .malformedState)
        let reader = FieldReader(code: .malformedState)
        _ = try reader.object(document, "state")
        guard try reader.integer(document["format"], "format", max: 1 << 16) == 2 else {
            throw TrustError(.malformedState, "format is not 2", at: .field("format"))
        }
        var roots: [Root] = []
        for (index, item) in try reader.array(document["roots"], "roots", max: CatalogVerifier.maxRootSteps).enumerated() {
            let text = try reader.string(item, "roots[\(index)]", maxBytes: Root.maxFileSize)
            do {
                roots.append(try Root(fileContents: Array(text.utf8)))
            } catch {
                throw TrustError(.malformedState, error.detail, at: .field("roots[\(index)]"))
            }
        }
        self.roots = roots
        if let catalog = document["catalog"] {
            let text = try reader.string(catalog, "catalog", maxBytes: Catalog.maxFileSize)
            let signatures = try reader.string(document["signatures"], "signatures", maxBytes: Minisign.maxFileSize)
            self.catalog = AcceptedCatalog(bytes: Array(text.utf8), signatures: Array(signatures.utf8))
        }
    }
}
