import ArgumentParser
import AssetLibrary
import AssetPack
import ErrorReporting
import StudyContent

@main
struct PackTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "packtool",
        abstract: "Build and inspect asset packs (uncompressed, indexed, aligned zip files).",
        discussion: "Every subcommand but build also works on any ordinary zip file.",
        version: "1.0.0",
        subcommands: [
            Build.self, List.self, Cat.self, Extract.self, Verify.self, Info.self, Index.self, Resolve.self, Show.self,
            Preview.self, Keygen.self, Sign.self, VerifySignature.self, RootCommand.self, Publish.self, VerifyCatalog.self,
            Fetch.self,
        ]
    )
}

/// Runs `body`; any library error becomes one line on stderr and exit status 1.
func reportingErrors(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as any LibraryError {
        Output.error("packtool: " + ErrorReport.line(for: error))
        throw ExitCode(1)
    }
}

/// The pack argument every inspection command takes.
struct PackArgument: ParsableArguments {
    @Argument(help: "The pack (or any zip file).")
    var pack: String

    func open(backend: PackBackend = .mapped) throws(PackError) -> Pack {
        try Pack(path: pack, backend: backend)
    }
}
