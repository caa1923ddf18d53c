import ArgumentParser
import AssetPack
import ErrorReporting
import Foundation
import PackTrust
import SystemPackage

/// Reads a file named on the command line; a missing or oversized file is one clear line.
func readArgumentFile(_ path: String, limit: Int, what: String) throws(TrustError) -> [UInt8] {
    do {
        return try readRegularFile(path, limit: limit)
    } catch {
        throw TrustError(error.code == .tooLarge ? .tooLarge : .fileUnreadable, "cannot read the \(what): \(error.detail)", file: path)
    }
}

func readSecretKey(_ path: String) throws(TrustError) -> Minisign.SecretKey {
    do throws(TrustError) {
        return try Minisign.SecretKey(fileContents: try readArgumentFile(path, limit: 64 * 1024, what: "secret key"))
    } catch {
        throw error.at(file: path)
    }
}

func readPublicKey(_ path: String) throws(TrustError) -> Minisign.PublicKey {
    do throws(TrustError) {
        return try Minisign.PublicKey(fileContents: try readArgumentFile(path, limit: 64 * 1024, what: "public key"))
    } catch {
        throw error.at(file: path)
    }
}

func readRoot(_ path: String) throws(TrustError) -> Root {
    do throws(TrustError) {
        return try Root(fileContents: try readArgumentFile(path, limit: Root.maxFileSize, what: "root"))
    } catch {
        throw error.at(file: path)
    }
}

/// The moment an `--expires` value names: a duration from now (`30d`, `12h`) or a time
/// (`2026-12-27T00:00:00Z`).
func expiryDate(_ value: String, example: String) throws(TrustError) -> Date {
    guard let moment = Timestamp.expiry(value, from: Date()) else {
        throw TrustError(.invalidArgument, "--expires \(value) is not like \(example)")
    }
    return moment
}

/// Creates `path` with `bytes`, mode 0600 when `secret`; never overwrites.
private func createFile(_ path: String, _ bytes: [UInt8], secret: Bool) throws(TrustError) {
    do {
        let file = try FileDescriptor.open(
            FilePath(path), .writeOnly, options: [.create, .exclusiveCreate],
            permissions: secret ? [.ownerReadWrite] : [.ownerReadWrite, .groupRead, .otherRead])
        defer { _ = try? file.close() }
        _ = try bytes.withUnsafeBytes { try file.writeAll($0) }
    } catch Errno.fileExists {
        throw TrustError(.fileExists, "already exists; a key is never overwritten", file: path)
    } catch {
        throw TrustError(.fileUnreadable, "cannot be written: \(error)", file: path)
    }
}

func writeReplacing(_ path: String, _ bytes: [UInt8]) throws(TrustError) {
    do {
        try DurableFile.write(bytes, to: path)
    } catch {
        throw TrustError(.fileUnreadable, "cannot be written: \(error)", file: path)
    }
}

extension PackTool {
    struct Keygen: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a signing key pair: NAME.pub (minisign's public-key format) and NAME.key (unencrypted secret key, mode 0600).",
            discussion: """
                The secret key is minisign's unencrypted format (what minisign -G -W writes), so \
                minisign -S -s NAME.key signs with it too. Neither file is ever overwritten.
                """)

        @Option(name: .shortAndLong, help: "The key pair's name: writes NAME.pub and NAME.key.")
        var output: String

        func run() throws {
            try reportingErrors {
                for path in [output + ".key", output + ".pub"] where FileManager.default.fileExists(atPath: path) {
                    throw TrustError(.fileExists, "already exists; a key is never overwritten", file: path)
                }
                let key = Minisign.SecretKey.generate()
                try createFile(output + ".key", Array(key.fileContents.utf8), secret: true)
                do {
                    try createFile(output + ".pub", Array(key.publicKey.fileContents.utf8), secret: false)
                } catch {
                    try? FileManager.default.removeItem(atPath: output + ".key")
                    throw error
                }
                try Output.line("key \(key.id): \(output).pub, \(output).key")
                try Output.line("public key: \(key.publicKey.base64)")
            }
        }
    }

    struct Sign: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sign a file: writes FILE.minisig, which minisign -V verifies.",
            discussion: """
                Ed25519 over BLAKE2b-512 of the file (minisign's default, ED), or with --legacy over \
                the file itself (Ed, minisign -l). The trusted comment is signed too; by default it \
                is "timestamp:SECONDS\\tfile:NAME\\thashed", as minisign writes it.
                """)

        @Argument(help: "The file to sign.")
        var file: String

        @Option(help: "The secret key (NAME.key from packtool keygen, or minisign -G -W).")
        var key: String

        @Option(help: "The trusted comment (one line).")
        var trustedComment: String?

        @Flag(help: "Sign the file itself (Ed) instead of its BLAKE2b-512 hash (ED).")
        var legacy = false

        func run() throws {
            try reportingErrors {
                let secret = try readSecretKey(key)
                let bytes = try readArgumentFile(file, limit: Int.max, what: "file")
                let name = file.split(separator: "/").last.map(String.init) ?? file
                let comment = trustedComment ?? "timestamp:\(Int(Date().timeIntervalSince1970))\tfile:\(name)\(legacy ? "" : "\thashed")"
                let signature = try secret.sign(bytes, trustedComment: comment, algorithm: legacy ? .legacy : .prehashed)
                try writeReplacing(file + ".minisig", Array(signature.fileContents.utf8))
                try Output.line("\(file).minisig: signed by key \(secret.id)")
            }
        }
    }

    struct VerifySignature: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify-signature",
            abstract: "Check FILE.minisig (from packtool sign or minisign -S) and print the trusted comment.",
            discussion: """
                Both of minisign's algorithms (ED and Ed); the trusted comment's signature is always \
                checked. With --json: {"path", "ok": true, "keyId", "algorithm", "trustedComment"}, \
                or {"path", "ok": false, "error": {...}} and exit status 1.
                """)

        @Argument(help: "The signed file.")
        var file: String

        @Option(help: "The public key file (NAME.pub).")
        var publicKey: String?

        @Option(help: "The public key as minisign -P takes it (base64).")
        var publicKeyString: String?

        @Option(help: "The signature file (default: FILE.minisig).")
        var signature: String?

        @Flag(help: "Print one JSON object.")
        var json = false

        func run() throws {
            try reportingErrors {
                let signaturePath = signature ?? file + ".minisig"
                do throws(TrustError) {
                    let key: Minisign.PublicKey
                    switch (publicKey, publicKeyString) {
                    case (let path?, nil): key = try readPublicKey(path)
                    case (nil, let text?): key = try Minisign.PublicKey(base64: text)
                    default: throw TrustError(.invalidArgument, "give exactly one of --public-key and --public-key-string")
                    }
                    let parsed: Minisign.Signature
                    do throws(TrustError) {
                        parsed = try Minisign.Signature(fileContents: try readArgumentFile(signaturePath, limit: 64 * 1024, what: "signature"))
                    } catch {
                        throw error.at(file: signaturePath)
                    }
                    let bytes = try readArgumentFile(file, limit: Int.max, what: "file")
                    do throws(TrustError) {
                        try key.verify(parsed, of: bytes)
                    } catch {
                        throw error.at(file: error.code == .badSignature ? file : signaturePath)
                    }
                    try emit {
                        if json {
                            try Output.json(
                                .object([
                                    ("path", .string(file)), ("ok", .bool(true)), ("keyId", .string(parsed.keyID.description)),
                                    ("algorithm", .string(parsed.algorithm.rawValue)), ("trustedComment", .string(parsed.trustedComment)),
                                ]))
                        } else {
                            try Output.line("\(file): signature OK, key \(parsed.keyID)")
                            try Output.line("trusted comment: \(parsed.trustedComment)")
                        }
                    }
                } catch {
                    if json { try Output.json(.object([("path", .string(file)), ("ok", .bool(false)), ("error", error.json)])) }
                    throw error
                }
            }
        }
    }
}

extension PackTool {
    struct RootCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "root",
            abstract: "Make the root of trust an app ships (root.json), or the next version of it.",
            subcommands: [Init.self, Next.self])

        struct Init: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Write root version 1: its public keys and threshold, signed by its own keys.",
                discussion: "Every --key signs and is listed; --public-key lists a key that does not sign now.")

            @Option(help: "A secret key that signs the root and is listed in it (repeatable).")
            var key: [String] = []

            @Option(help: "A public key listed in the root without signing it (repeatable).")
            var publicKey: [String] = []

            @Option(help: "How many of the root's keys must sign a catalog or the next root.")
            var threshold: Int = 1

            @Option(help: "When the root expires: 365d, 12h, or a time like 2027-11-27T00:00:00Z.")
            var expires: String = "3650d"

            @Option(name: .shortAndLong, help: "The root file to write (never overwritten).")
            var output: String

            func run() throws {
                try reportingErrors {
                    let signers = try key.map { (path) throws(TrustError) in try readSecretKey(path) }
                    let listed = try publicKey.map { (path) throws(TrustError) in try readPublicKey(path) }
                    let expiry = try expiryDate(expires, example: "365d, 12h or 2027-11-27T00:00:00Z")
                    var root = try Root(version: 1, expires: expiry, threshold: threshold, keys: signers.map(\.publicKey) + listed)
                    for signer in signers { try root.sign(with: signer) }
                    try root.checkSelfSigned()
                    try writeNew(output, Array(root.fileContents.utf8))
                    try Output.line("\(output): root version 1, \(root.keys.count) keys, threshold \(root.threshold), expires \(Timestamp.format(root.expires))")
                }
            }
        }

        struct Next: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Write root version N+1 (key rotation), signed by a threshold of root N's keys and of its own.",
                discussion: "Publish it as roots/N+1.root.json in the repository; clients walk to it from the root they trust.")

            @Argument(help: "The current root (version N).")
            var previous: String

            @Option(help: "A public key the new root lists (repeatable); --key's keys that are in the new root are listed too with --keep-signers.")
            var publicKey: [String] = []

            @Option(help: "A secret key that signs the new root (repeatable): old keys, new keys or both.")
            var key: [String] = []

            @Flag(help: "Also list the signing keys in the new root.")
            var keepSigners = false

            @Option(help: "The new root's threshold.")
            var threshold: Int = 1

            @Option(help: "When the new root expires: 365d, 12h, or a time like 2027-11-27T00:00:00Z.")
            var expires: String = "3650d"

            @Option(name: .shortAndLong, help: "The new root file to write (never overwritten).")
            var output: String

            func run() throws {
                try reportingErrors {
                    let old = try readRoot(previous)
                    let signers = try key.map { (path) throws(TrustError) in try readSecretKey(path) }
                    var listed = try publicKey.map { (path) throws(TrustError) in try readPublicKey(path) }
                    if keepSigners { listed = signers.map(\.publicKey) + listed.filter { key in !signers.contains { $0.id == key.id } } }
                    let expiry = try expiryDate(expires, example: "365d, 12h or 2027-11-27T00:00:00Z")
                    var root = try Root(version: old.version + 1, expires: expiry, threshold: threshold, keys: listed)
                    for signer in signers { try root.sign(with: signer) }
                    try old.checkSuccessor(root)
                    try writeNew(output, Array(root.fileContents.utf8))
                    try Output.line("\(output): root version \(root.version), \(root.keys.count) keys, threshold \(root.threshold)")
                }
            }
        }
    }

    struct Publish: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Publish packs as a signed catalog in a folder any web server, CDN or S3 bucket can serve.",
            discussion: """
                Writes DIR/packs/SHA256.pack (named by the SHA-256 of each pack file), \
                DIR/catalogs/N.json and DIR/catalogs/N.json.minisig (one minisign signature per --key; \
                the trusted comment repeats the version and expiry), then DIR/latest.json, the one \
                small file ever overwritten, last. Everything else is written once and never \
                changes, so a CDN may cache it forever. The version must be greater than DIR's \
                current one. Nothing is written unless every check passes.
                """)

        @Argument(help: "The packs (format 2).")
        var packs: [String]

        @Option(name: .customLong("to"), help: "The repository folder.")
        var folder: String

        @Option(help: "A secret key that signs the catalog (repeatable, up to the root's threshold).")
        var key: [String]

        @Option(help: "The catalog version: an integer greater than the last one published.")
        var version: Int

        @Option(help: "When the catalog expires: 30d, 12h, or a time like 2026-12-27T00:00:00Z.")
        var expires: String = "30d"

        func run() throws {
            try reportingErrors {
                let signers = try key.map { (path) throws(TrustError) in try readSecretKey(path) }
                let expiry = try expiryDate(expires, example: "30d, 12h or 2026-12-27T00:00:00Z")
                let catalog = try Publisher.publish(packs: packs, to: folder, keys: signers, version: version, expires: expiry)
                let bytes = catalog.packs.reduce(UInt64(0)) { $0 + $1.size }
                try Output.line(
                    "\(folder): catalog version \(catalog.version), \(catalog.packs.count) packs (\(bytes) bytes), expires \(Timestamp.format(catalog.expires))")
            }
        }
    }

    struct VerifyCatalog: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify-catalog",
            abstract: "Run a client's checks on a repository folder: root chain, signatures, rollback, freeze, paths and packs.",
            discussion: """
                Reads DIR/latest.json, walks from --root through DIR/roots/N.root.json to the root it \
                names, checks DIR/catalogs/N.json.minisig against a threshold of the newest root's \
                keys, the catalog against --state (rollback, same version with other bytes, each \
                re-verified from --root), its expiry, its paths, and every pack's size, SHA-256 and \
                digest. On success the state file (if given) records what was accepted. With --json: \
                {"path", "ok": true, "rootVersion", "catalogVersion", "expires", "packs", "state"} or \
                {"path", "ok": false, "error": {...}}.
                """)

        @Argument(help: "The repository folder.")
        var folder: String

        @Option(help: "The root the app ships (root.json).")
        var root: String

        @Option(help: "Where the last accepted versions are kept (created if missing).")
        var state: String?

        @Flag(help: "Print one JSON object.")
        var json = false

        func run() throws {
            try reportingErrors {
                do throws(TrustError) {
                    let started = Date()
                    let trusted = try readRoot(root)
                    let verifier: CatalogVerifier
                    do throws(TrustError) {
                        verifier = try CatalogVerifier(trustedRoot: trusted)
                    } catch {
                        throw error.at(file: root)
                    }
                    var previous: TrustState?
                    if let state, FileManager.default.fileExists(atPath: state) {
                        do throws(TrustError) {
                            previous = try TrustState(fileContents: try readArgumentFile(state, limit: TrustState.maxFileSize, what: "state"))
                        } catch {
                            throw error.at(file: state)
                        }
                    }
                    let (verified, next, restoration) = try RepositoryFolder(path: folder).verify(
                        with: verifier, state: previous, updateStarted: started)
                    if let state { try writeReplacing(state, next.fileContents) }
                    let catalog = verified.catalog
                    try emit {
                        if json {
                            try Output.json(
                                .object([
                                    ("path", .string(folder)), ("ok", .bool(true)), ("rootVersion", .number(verified.root.version)),
                                    ("catalogVersion", .number(catalog.version)), ("expires", .string(Timestamp.format(catalog.expires))),
                                    ("packs", .number(catalog.packs.count)), ("state", .string(restoration.summary)),
                                ]))
                        } else {
                            try Output.line(
                                "\(folder): OK, catalog version \(catalog.version) (root version \(verified.root.version)), \(catalog.packs.count) packs, expires \(Timestamp.format(catalog.expires))")
                        }
                    }
                } catch {
                    if json { try Output.json(.object([("path", .string(folder)), ("ok", .bool(false)), ("error", error.json)])) }
                    throw error
                }
            }
        }
    }
}

/// Creates `path`; never overwrites.
private func writeNew(_ path: String, _ bytes: [UInt8]) throws(TrustError) {
    try createFile(path, bytes, secret: false)
}

/// Runs `body`, which prints; a failed write to standard output becomes a ``TrustError``.
private func emit(_ body: () throws -> Void) throws(TrustError) {
    do {
        try body()
    } catch {
        throw TrustError(.fileUnreadable, "cannot write to standard output: \(error)")
    }
}
