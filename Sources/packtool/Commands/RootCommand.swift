import ArgumentParser
import AssetPack
import ErrorReporting
import Foundation
import PackTrust
import SystemPackage

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
}
