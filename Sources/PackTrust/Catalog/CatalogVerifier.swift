import AssetPack
import Foundation

/// A catalog that passed every check, and the root that vouched for it.
public struct VerifiedCatalog: Sendable, Equatable {
    /// The catalog.
    public var catalog: Catalog
    /// The newest root, whose keys signed it.
    public var root: Root
    /// The SHA-256 of catalog.json.
    public var sha256: EntryHash
    /// The trusted comment of the first signature that verified.
    public var trustedComment: String
    /// The catalog's bytes and signatures, as a client keeps them (``TrustState/catalog``).
    public var accepted: TrustState.AcceptedCatalog
}

/// How errors name a catalog's files: `catalog.json` and its `.minisig` by default, or the
/// repository's paths of one version (``RepositoryLayout/catalog(_:)``).
public struct CatalogFiles: Sendable {
    /// The catalog's file.
    public var catalog: String
    /// Its signatures' file.
    public var signatures: String

    /// `catalog.json` and `catalog.json.minisig`.
    public init(catalog: String = "catalog.json", signatures: String = "catalog.json.minisig") {
        self.catalog = catalog
        self.signatures = signatures
    }

    /// The repository's files of catalog version `version`, under `base` (a folder or URL, with its `/`).
    public init(version: Int, base: String = "") {
        self.init(catalog: base + RepositoryLayout.catalog(version), signatures: base + RepositoryLayout.signatures(version))
    }
}

/// The roots a client trusts now: the one the app ships, then each next version it verified.
public struct TrustChain: Sendable, Equatable {
    /// The shipped root first, the newest last.
    public private(set) var roots: [Root]

    /// The newest root: its keys sign catalogs now.
    public var current: Root { roots[roots.count - 1] }

    init(shipped: Root) { roots = [shipped] }

    mutating func append(_ root: Root) { roots.append(root) }
}

/// How a stored state was found when it was read back.
public enum StateRestoration: Sendable, Equatable {
    /// There was no state: a first run (no rollback floor yet).
    case firstRun
    /// Every root and the catalog in it verified.
    case verified
    /// Part of it did not verify and was dropped; the rest (at least the shipped root) stands.
    case rebuilt(reason: String)

    /// `first run`, `verified`, or `rebuilt: REASON`, as the tools print it.
    public var summary: String {
        switch self {
        case .firstRun: "first run"
        case .verified: "verified"
        case .rebuilt(let reason): "rebuilt: " + reason
        }
    }
}

/// The client's checks on an update, in one place for `packtool verify-catalog` and the
/// delivery client: the root chain, the catalog's signatures, rollback, freeze, the catalog's
/// contents and, for each pack fetched, its bytes against the catalog.
///
/// Each step takes one object as it arrives, so a client holds at most one unverified object
/// in memory: ``restore(_:)`` the saved state, ``advance(_:to:)`` through each next root,
/// ``verify(catalog:signatures:chain:floor:updateStarted:files:)`` the catalog.
public struct CatalogVerifier: Sendable {
    /// The root the app ships.
    public let trustedRoot: Root

    /// - Throws: ``TrustError/Code/untrustedRoot`` unless a threshold of its own keys signed it.
    public init(trustedRoot: Root) throws(TrustError) {
        try trustedRoot.checkSelfSigned()
        self.trustedRoot = trustedRoot
    }

    /// The longest chain of new roots walked.
    public static let maxRootSteps = 1024

    /// The chain and the rollback floor a saved `state` vouches for, each re-verified from the
    /// shipped root: a root that does not follow from the one before it ends the chain there, a
    /// catalog that its root's keys did not sign is dropped. Never fails: a damaged or planted
    /// state is rebuilt from the shipped root, and says so.
    public func restore(_ state: TrustState?) -> (TrustChain, floor: VerifiedCatalog?, StateRestoration) {
        var chain = TrustChain(shipped: trustedRoot)
        guard let state else { return (chain, nil, .firstRun) }
        var problems: [String] = []
        for root in state.roots where root.version > trustedRoot.version {
            do {
                try advance(&chain, to: root)
            } catch {
                problems.append("root version \(root.version) does not follow version \(chain.current.version): \(error.detail)")
                break
            }
        }
        var floor: VerifiedCatalog?
        if let accepted = state.catalog {
            do {
                floor = try checkSigned(accepted, by: chain.current)
            } catch {
                problems.append("the saved catalog does not verify: \(error.detail)")
            }
        }
        return (chain, floor, problems.isEmpty ? .verified : .rebuilt(reason: problems.joined(separator: "; ")))
    }

    /// Checks that `next` follows the chain's newest root, and adds it.
    public func advance(_ chain: inout TrustChain, to next: Root) throws(TrustError) {
        guard chain.roots.count <= Self.maxRootSteps else {
            throw TrustError(.untrustedRoot, "more than \(Self.maxRootSteps) roots in one chain")
        }
        try chain.current.checkSuccessor(next)
        chain.append(next)
    }

    /// Reads `bytes` as root version `version` and adds it to the chain, naming the file on failure.
    public func advance(_ chain: inout TrustChain, rootFile bytes: [UInt8], version: Int) throws(TrustError) {
        do throws(TrustError) {
            let next = try Root(fileContents: bytes)
            guard next.version == version else {
                throw TrustError(.untrustedRoot, "the file holds root version \(next.version)")
            }
            try advance(&chain, to: next)
        } catch {
            throw error.at(file: RepositoryLayout.root(version))
        }
    }

    /// Checks a catalog: signed by a threshold of the chain's newest root's keys, not expired
    /// when the update began (nor the root), and not older than `floor`, the last catalog
    /// accepted; the same version must have the same bytes.
    ///
    /// The floor counts only while it is itself signed by the newest root's keys: once a new
    /// root rotates out the keys that signed it (a fast-forward attack signed a huge version
    /// with a stolen key, say), the floor resets, as TUF's client does (spec 5.3.11); a catalog
    /// signed by the rotated-out keys verifies no longer either.
    ///
    /// Errors name the files as `files` says (the repository's paths of this version).
    public func verify(
        catalog bytes: [UInt8], signatures: [UInt8], chain: TrustChain, floor: VerifiedCatalog?, updateStarted: Date,
        files: CatalogFiles = CatalogFiles()
    ) throws(TrustError) -> VerifiedCatalog {
        let root = chain.current
        guard root.expires > updateStarted else {
            throw TrustError(.expiredRoot, "root version \(root.version) expired at \(Timestamp.format(root.expires))")
        }
        let verified = try checkSigned(TrustState.AcceptedCatalog(bytes: bytes, signatures: signatures), by: root, files: files)
        let catalog = verified.catalog
        if let floor = floor.flatMap({ try? checkSigned($0.accepted, by: root) }) {
            guard catalog.version >= floor.catalog.version else {
                throw TrustError(
                    .rollback, "catalog version \(catalog.version) is older than version \(floor.catalog.version), already accepted", at: .file(files.catalog))
            }
            if catalog.version == floor.catalog.version, floor.sha256 != verified.sha256 {
                throw TrustError(.catalogChanged, "catalog version \(catalog.version) was accepted with other bytes", at: .file(files.catalog))
            }
        }
        try checkNotExpired(verified, updateStarted: updateStarted, file: files.catalog)
        return verified
    }

    /// Checks that `catalog` has not expired before the update began (a freeze).
    public func checkNotExpired(_ catalog: VerifiedCatalog, updateStarted: Date, file: String = "catalog.json") throws(TrustError) {
        guard catalog.catalog.expires > updateStarted else {
            throw TrustError(
                .expiredCatalog, "catalog version \(catalog.catalog.version) expired at \(Timestamp.format(catalog.catalog.expires)), before this update began", at: .file(file))
        }
    }

    /// The catalog, if a threshold of `root`'s keys signed it (the trusted comment, which repeats
    /// the version and expiry, included) and it reads as a catalog.
    func checkSigned(
        _ accepted: TrustState.AcceptedCatalog, by root: Root, files: CatalogFiles = CatalogFiles()
    ) throws(TrustError) -> VerifiedCatalog {
        let catalogBytes = accepted.bytes
        guard catalogBytes.count <= Catalog.maxFileSize else {
            throw TrustError(.tooLarge, "a catalog is at most \(Catalog.maxFileSize) bytes, this one \(catalogBytes.count)", at: .file(files.catalog))
        }
        let signatures: [Minisign.Signature]
        do {
            signatures = try Minisign.Signature.parseAll(accepted.signatures)
        } catch {
            throw error.at(file: files.signatures)
        }
        var signers = Set<Minisign.KeyID>()
        var firstComment: String?
        var lastFailure: TrustError?
        // Each of the root's keys is tried on the first signature that names it, and the
        // catalog hashed once: a signature file packed with signatures that name a key (it
        // holds a few hundred) costs no more than one per key, before anything is authenticated.
        var tried = Set<Minisign.KeyID>()
        var digest: [UInt8]?
        for signature in signatures {
            guard let key = root.keys.first(where: { $0.id == signature.keyID }), tried.insert(signature.keyID).inserted else { continue }
            do {
                try catalogBytes.withUnsafeBytes { raw in
                    Result { () throws(TrustError) in try key.verify(signature, of: raw, digest: &digest) }
                }.get()
                signers.insert(signature.keyID)
                if firstComment == nil { firstComment = signature.trustedComment }
            } catch {
                lastFailure = error
            }
        }
        guard signers.count >= root.threshold, let comment = firstComment else {
            let detail = "\(signers.count) valid signatures by root version \(root.version)'s keys, its threshold is \(root.threshold)"
            throw TrustError(
                lastFailure?.code ?? .untrustedCatalog, lastFailure.map { "\($0.detail); \(detail)" } ?? detail, at: .file(files.signatures, field: lastFailure?.location.field))
        }
        let catalog: Catalog
        do {
            catalog = try Catalog(fileContents: catalogBytes)
        } catch {
            throw error.at(file: files.catalog)
        }
        guard comment == catalog.trustedComment else {
            throw TrustError(
                .untrustedCatalog, "the signed comment \"\(comment)\" does not match the catalog (\(catalog.trustedComment))", at: .file(files.signatures, field: "trusted comment"))
        }
        return VerifiedCatalog(catalog: catalog, root: root, sha256: EntryHash.of(catalogBytes), trustedComment: comment, accepted: accepted)
    }

    /// The state to keep once `catalog` is accepted under `chain`.
    public static func state(accepting catalog: VerifiedCatalog, chain: TrustChain) -> TrustState {
        TrustState(roots: Array(chain.roots.dropFirst()), catalog: catalog.accepted)
    }

    /// Checks a pack file against its catalog entry: size, SHA-256 of the whole file, and the
    /// name, locale and digest its index states (a pack of another catalog is refused). The file
    /// is opened once, hashed, and parsed only once its bytes are known to be the published ones.
    public static func checkPack(_ entry: Catalog.Entry, at path: String) throws(TrustError) {
        var refusal: TrustError?
        let pack: Pack
        do {
            pack = try Pack.openHashed(path: path) { (hash, size) throws(PackError) in
                if size != entry.size {
                    refusal = TrustError(.packMismatch, "is \(size) bytes, the catalog says \(entry.size)", at: .file(path, field: entry.name))
                } else if hash != entry.sha256 {
                    refusal = TrustError(.packMismatch, "has SHA-256 \(hash.hex), the catalog says \(entry.sha256.hex)", at: .file(path, field: entry.name))
                }
                if refusal != nil { throw PackError(.sha256Mismatch) }
            }
        } catch {
            throw refusal ?? TrustError(.packMismatch, "cannot be opened: \(error)", at: .file(path, field: entry.name))
        }
        guard let metadata = pack.metadata, metadata.digest == entry.digest, metadata.name == entry.name, metadata.locale == entry.locale
        else {
            throw TrustError(
                .packMismatch, "its index says \(pack.metadata.map { "\($0.name) \($0.locale ?? "base") \($0.digest)" } ?? "nothing"), the catalog \(entry.name) \(entry.locale ?? "base") \(entry.digest)", at: .file(path, field: entry.name))
        }
    }

    /// The SHA-256 and size of a whole file, read in 1 MiB pieces.
    public static func fileSHA256(_ path: String) throws(TrustError) -> (hash: EntryHash, size: UInt64) {
        do {
            return try Pack.fileSHA256(path: path)
        } catch {
            throw TrustError(.fileUnreadable, "\(error.detail)", at: .file(path))
        }
    }
}
