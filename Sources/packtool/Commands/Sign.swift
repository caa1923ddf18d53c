import ArgumentParser
import AssetPack
import ErrorReporting
import Foundation
import PackTrust
import SystemPackage

extension PackTool {
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
}
