import ArgumentParser
import AssetPack
import ErrorReporting
import Foundation
import PackTrust
import SystemPackage

extension PackTool {
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
}
