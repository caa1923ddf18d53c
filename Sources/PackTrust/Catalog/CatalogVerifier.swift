import AssetPack
import Foundation

/// What a client remembers between updates: the newest root it accepted and the last catalog
/// (version and SHA-256), so an older or altered catalog is refused next time.
public struct TrustState: Sendable, Equatable {
    /// The newest root accepted, when newer than the one the app ships.
    public var root: Root?
    /// The version of the last catalog accepted.
    public var catalogVersion: Int?
    /// The SHA-256 of the last catalog accepted.
    public var catalogSHA256: EntryHash?

    /// A state; the default remembers nothing (a fresh install).
    public init(root: Root? = nil, catalogVersion: Int? = nil, catalogSHA256: EntryHash? = nil) {
        self.root = root
        self.catalogVersion = catalogVersion
        self.catalogSHA256 = catalogSHA256
    }

    /// The state file: JSON, the root's file kept as a string.
    public var fileContents: [UInt8] {
        var text = "{\"format\":1"
        if let catalogVersion { text += ",\"catalogVersion\":\(catalogVersion)" }
        if let catalogSHA256 { text += ",\"catalogSHA256\":\"\(catalogSHA256.hex)\"" }
        if let root {
            // The root file's text as a string: its bytes are what was verified.
            text += ",\"root\":" + JSONText.string(root.fileContents)
        }
        return Array((text + "}\n").utf8)
    }

    /// Reads a state file.
    public init(fileContents bytes: [UInt8]) throws(TrustError) {
        let document = try JSONText.parse(bytes, code: .malformedState)
        let reader = FieldReader(code: .malformedState)
        _ = try reader.object(document, "state")
        if let version = document["catalogVersion"] { catalogVersion = try reader.integer(version, "catalogVersion", max: 1 << 53) }
        if let hash = document["catalogSHA256"] {
            guard let parsed = EntryHash(hex: try reader.string(hash, "catalogSHA256")) else {
                throw TrustError(.malformedState, "not 64 hex digits", field: "catalogSHA256")
            }
            catalogSHA256 = parsed
        }
        if let root = document["root"] {
            self.root = try Root(fileContents: Array(try reader.string(root, "root", maxBytes: Root.maxFileSize).utf8))
        }
    }
}

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
}

/// The client's checks on an update, in one place for `packtool verify-catalog` and the
/// delivery client: the root chain, the catalog's signatures, rollback, freeze, the catalog's
/// contents and, for each pack fetched, its bytes against the catalog.
public struct CatalogVerifier: Sendable {
    /// The root the app ships.
    public let trustedRoot: Root

    /// - Throws: ``TrustError/Code/untrustedRoot`` unless a threshold of its own keys signed it.
    public init(trustedRoot: Root) throws(TrustError) {
        try trustedRoot.checkSelfSigned()
        self.trustedRoot = trustedRoot
    }

    /// The longest chain of new roots walked in one update.
    public static let maxRootSteps = 1024

    /// Checks an update and returns the catalog with the state to keep if it is installed.
    ///
    /// - Parameters:
    ///   - nextRoot: the bytes of root version N (`roots/N.root.json`), or `nil` when there is none.
    ///   - catalogBytes: `catalog.json`'s bytes.
    ///   - signatureBytes: `catalog.json.minisig`'s bytes.
    ///   - state: what was accepted before.
    ///   - updateStarted: when this update began (an expired catalog or root is refused).
    public func verify(
        nextRoot: (Int) throws(TrustError) -> [UInt8]?, catalog catalogBytes: [UInt8], signatures signatureBytes: [UInt8],
        state: TrustState, updateStarted: Date
    ) throws(TrustError) -> (VerifiedCatalog, TrustState) {
        // The root: the newest of the shipped one and the remembered one, then every next version.
        var root = trustedRoot
        if let remembered = state.root, remembered.version > root.version {
            try remembered.checkSelfSigned()
            root = remembered
        }
        var steps = 0
        while steps < Self.maxRootSteps, let bytes = try nextRoot(root.version + 1) {
            let next: Root
            do {
                next = try Root(fileContents: bytes)
            } catch {
                throw error.at(file: "roots/\(root.version + 1).root.json")
            }
            do {
                try root.checkSuccessor(next)
            } catch {
                throw error.at(file: "roots/\(root.version + 1).root.json")
            }
            root = next
            steps += 1
        }
        guard root.expires > updateStarted else {
            throw TrustError(.expiredRoot, "root version \(root.version) expired at \(Timestamp.format(root.expires))")
        }
        // The catalog's signatures: a threshold of distinct root keys.
        guard catalogBytes.count <= Catalog.maxFileSize else {
            throw TrustError(.tooLarge, "a catalog is at most \(Catalog.maxFileSize) bytes, this one \(catalogBytes.count)", file: "catalog.json")
        }
        let signatures: [Minisign.Signature]
        do {
            signatures = try Minisign.Signature.parseAll(signatureBytes)
        } catch {
            throw error.at(file: "catalog.json.minisig")
        }
        var signers = Set<Minisign.KeyID>()
        var firstComment: String?
        var lastFailure: TrustError?
        for signature in signatures where !signers.contains(signature.keyID) {
            guard let key = root.keys.first(where: { $0.id == signature.keyID }) else { continue }
            do {
                try key.verify(signature, of: catalogBytes)
                signers.insert(signature.keyID)
                if firstComment == nil { firstComment = signature.trustedComment }
            } catch {
                lastFailure = error
            }
        }
        guard signers.count >= root.threshold, let comment = firstComment else {
            let detail = "\(signers.count) valid signatures by root version \(root.version)'s keys, its threshold is \(root.threshold)"
            throw TrustError(
                lastFailure?.code ?? .untrustedCatalog, lastFailure.map { "\($0.detail); \(detail)" } ?? detail,
                file: "catalog.json.minisig", field: lastFailure?.field)
        }
        // Its contents, and the version and expiry signed twice.
        let catalog: Catalog
        do {
            catalog = try Catalog(fileContents: catalogBytes)
        } catch {
            throw error.at(file: "catalog.json")
        }
        guard comment == catalog.trustedComment else {
            throw TrustError(
                .untrustedCatalog, "the signed comment \"\(comment)\" does not match the catalog (\(catalog.trustedComment))",
                file: "catalog.json.minisig", field: "trusted comment")
        }
        let sha256 = EntryHash.of(catalogBytes)
        if let accepted = state.catalogVersion {
            guard catalog.version >= accepted else {
                throw TrustError(.rollback, "catalog version \(catalog.version) is older than version \(accepted), already accepted", file: "catalog.json")
            }
            if catalog.version == accepted, let known = state.catalogSHA256, known != sha256 {
                throw TrustError(.catalogChanged, "catalog version \(accepted) was accepted with other bytes", file: "catalog.json")
            }
        }
        guard catalog.expires > updateStarted else {
            throw TrustError(
                .expiredCatalog, "catalog version \(catalog.version) expired at \(Timestamp.format(catalog.expires)), before this update began",
                file: "catalog.json")
        }
        let verified = VerifiedCatalog(catalog: catalog, root: root, sha256: sha256, trustedComment: comment)
        return (verified, TrustState(root: root.version > trustedRoot.version ? root : nil, catalogVersion: catalog.version, catalogSHA256: sha256))
    }

    /// Checks a pack file against its catalog entry: size, SHA-256 of the whole file, and the
    /// name, locale and digest its index states (a pack of another catalog is refused).
    public static func checkPack(_ entry: Catalog.Entry, at path: String) throws(TrustError) {
        let pack: Pack
        do {
            pack = try Pack(path: path, backend: .read)
        } catch {
            throw TrustError(.packMismatch, "cannot be opened: \(error)", file: path, field: entry.name)
        }
        guard pack.fileSize == entry.size else {
            throw TrustError(.packMismatch, "is \(pack.fileSize) bytes, the catalog says \(entry.size)", file: path, field: entry.name)
        }
        let actual = try fileSHA256(path)
        guard actual == entry.sha256 else {
            throw TrustError(.packMismatch, "has SHA-256 \(actual.hex), the catalog says \(entry.sha256.hex)", file: path, field: entry.name)
        }
        guard let metadata = pack.metadata, metadata.digest == entry.digest, metadata.name == entry.name, metadata.locale == entry.locale
        else {
            throw TrustError(
                .packMismatch, "its index says \(pack.metadata.map { "\($0.name) \($0.locale ?? "base") \($0.digest)" } ?? "nothing"), the catalog \(entry.name) \(entry.locale ?? "base") \(entry.digest)",
                file: path, field: entry.name)
        }
    }

    /// The SHA-256 of a whole file, read in 1 MiB pieces.
    public static func fileSHA256(_ path: String) throws(TrustError) -> EntryHash {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw TrustError(.fileUnreadable, "cannot be opened", file: path)
        }
        defer { try? handle.close() }
        var hasher = EntryHash.Hasher()
        while true {
            let chunk = handle.readData(ofLength: 1 << 20)
            if chunk.isEmpty { break }
            chunk.withUnsafeBytes { hasher.update($0) }
        }
        return hasher.finish()
    }
}

/// A repository folder as `packtool publish` writes it and a web server serves it.
public struct RepositoryFolder: Sendable {
    /// The folder.
    public let path: String

    /// The repository in the folder at `path`.
    public init(path: String) { self.path = path }

    /// The path of a file of the repository.
    public func file(_ relative: String) -> String { path + "/" + relative }

    /// A file's bytes, `nil` if it does not exist, an error if it exceeds `limit`.
    public func read(_ relative: String, limit: Int) throws(TrustError) -> [UInt8]? {
        let full = file(relative)
        guard FileManager.default.fileExists(atPath: full) else { return nil }
        do {
            return try readRegularFile(full, limit: limit)
        } catch {
            if error.code == .tooLarge {
                throw TrustError(.tooLarge, "more than \(limit) bytes", file: full)
            }
            throw TrustError(.fileUnreadable, "\(error)", file: full)
        }
    }

    /// Runs every check of ``CatalogVerifier`` on the folder, packs included.
    public func verify(
        with verifier: CatalogVerifier, state: TrustState, updateStarted: Date
    ) throws(TrustError) -> (VerifiedCatalog, TrustState) {
        guard let catalog = try read("catalog.json", limit: Catalog.maxFileSize) else {
            throw TrustError(.fileUnreadable, "missing", file: file("catalog.json"))
        }
        guard let signatures = try read("catalog.json.minisig", limit: Minisign.maxFileSize) else {
            throw TrustError(.fileUnreadable, "missing", file: file("catalog.json.minisig"))
        }
        let result = try verifier.verify(
            nextRoot: { (version) throws(TrustError) in try read("roots/\(version).root.json", limit: Root.maxFileSize) },
            catalog: catalog, signatures: signatures, state: state, updateStarted: updateStarted)
        for entry in result.0.catalog.packs {
            try CatalogVerifier.checkPack(entry, at: file(entry.path))
        }
        return result
    }
}
