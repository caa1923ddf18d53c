import ArgumentParser
import AssetPack
import ErrorReporting
import Foundation
import PackTrust
import SystemPackage

extension PackTool {
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
