import AssetPack
import Foundation

/// Where things are in a published repository, laid out so that a CDN or an S3 edge may serve
/// any mix of old and new objects without ever failing an update:
///
/// ```
/// latest.json                   the only object ever overwritten: the current versions (small)
/// catalogs/N.json               catalog version N, immutable
/// catalogs/N.json.minisig       its signatures, immutable
/// roots/N.root.json             root version N, immutable
/// packs/SHA256.pack             each pack file, named by its SHA-256, immutable
/// ```
///
/// The publisher writes packs, then the catalog's signatures, then the catalog, and
/// `latest.json` last; every object but `latest.json` is written once under a new name. A
/// reader at any moment sees either the old version whole or the new one whole: a stale
/// `latest.json` only delays an update (the expiry bounds how long), and a new one never
/// names an object the origin lacks.
public enum RepositoryLayout {
    /// The pointer to the current catalog and root versions.
    public static let latest = "latest.json"

    /// Catalog version `version`.
    public static func catalog(_ version: Int) -> String { "catalogs/\(version).json" }

    /// The signatures of catalog version `version`.
    public static func signatures(_ version: Int) -> String { "catalogs/\(version).json.minisig" }

    /// Root version `version`.
    public static func root(_ version: Int) -> String { "roots/\(version).root.json" }

    /// The pack file whose SHA-256 is `sha256`.
    public static func pack(_ sha256: EntryHash) -> String { "packs/\(sha256.hex).pack" }
}

/// `latest.json`: which catalog version is current, and the newest root version. Unsigned on
/// purpose: the catalog it names is signed, and a pointer that lies can only name an older
/// catalog (refused as a rollback, so the client keeps what it has) or one that does not exist
/// (an update that waits).
public struct LatestPointer: Sendable, Equatable {
    /// The current catalog's version.
    public var catalogVersion: Int
    /// The newest root's version (1 when no root was ever rotated).
    public var rootVersion: Int

    /// The largest pointer file a client reads.
    public static let maxFileSize = 4096

    /// A pointer to catalog `catalogVersion` and root `rootVersion`.
    public init(catalogVersion: Int, rootVersion: Int) {
        self.catalogVersion = catalogVersion
        self.rootVersion = rootVersion
    }

    /// The file: one line of JSON.
    public var fileContents: [UInt8] {
        Array("{\"format\":1,\"type\":\"latest\",\"catalog\":\(catalogVersion),\"root\":\(rootVersion)}\n".utf8)
    }

    /// Reads a pointer file.
    public init(fileContents bytes: [UInt8]) throws(TrustError) {
        guard bytes.count <= Self.maxFileSize else {
            throw TrustError(.tooLarge, "a pointer is at most \(Self.maxFileSize) bytes, this one \(bytes.count)", at: .file(RepositoryLayout.latest))
        }
        do throws(TrustError) {
            let document = try JSONText.parse(bytes, code: .malformedCatalog)
            let reader = FieldReader(code: .malformedCatalog)
            _ = try reader.object(document, "latest")
            guard try reader.integer(document["format"], "format", max: 1 << 16) == 1 else {
                throw TrustError(.malformedCatalog, "format is not 1", at: .field("format"))
            }
            guard try reader.string(document["type"], "type") == "latest" else {
                throw TrustError(.malformedCatalog, "type is not \"latest\"", at: .field("type"))
            }
            catalogVersion = try reader.integer(document["catalog"], "catalog", max: 1 << 53)
            rootVersion = try reader.integer(document["root"], "root", max: 1 << 31)
        } catch {
            throw error.at(file: RepositoryLayout.latest)
        }
    }
}
