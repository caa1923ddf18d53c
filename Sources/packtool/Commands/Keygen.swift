import ArgumentParser
import AssetPack
import ErrorReporting
import Foundation
import PackTrust
import SystemPackage

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
                    throw TrustError(.fileExists, "already exists; a key is never overwritten", at: .file(path))
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
}
