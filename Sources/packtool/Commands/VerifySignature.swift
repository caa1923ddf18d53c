import ArgumentParser
import AssetPack
import ErrorReporting
import Foundation
import PackTrust
import SystemPackage

extension PackTool {
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
