import ArgumentParser
import AssetLibrary
import AssetPack
import StudyContent

import SystemPackage

@main
struct PackTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "packtool",
        abstract: "Build and inspect asset packs (uncompressed, indexed, aligned zip files).",
        discussion: "Every subcommand but build also works on any ordinary zip file.",
        version: "1.0.0",
        subcommands: [
            Build.self, List.self, Cat.self, Extract.self, Verify.self, Info.self, Index.self, Resolve.self, Show.self,
        ]
    )
}

/// Runs `body`; a ``PackError`` becomes one line on stderr and exit status 1.
func reportingErrors(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as PackError {
        Output.error("packtool: \(error.description)")
        throw ExitCode(1)
    } catch let error as StoreError {
        Output.error("packtool: \(error.description)")
        throw ExitCode(1)
    } catch let error as ContentError {
        Output.error("packtool: \(error.description)")
        throw ExitCode(1)
    }
}

/// Unbuffered writes to standard output and standard error (through swift-system, which
/// retries interrupted writes).
enum Output {
    static func write(_ bytes: UnsafeRawBufferPointer, to file: FileDescriptor = .standardOutput) throws {
        do {
            _ = try file.writeAll(bytes)
        } catch let error as Errno {
            throw PackError(.io, "cannot write to standard output: \(error.description)", systemError: error)
        }
    }

    /// Writes one line; control characters in it (from names and metadata in files) are
    /// escaped, so a line stays one line and carries no terminal escapes.
    static func line(_ text: String) throws {
        var text = text.escapingControlCharacters + "\n"
        try text.withUTF8 { try write(UnsafeRawBufferPointer($0)) }
    }

    /// Writes one line to standard error, escaped as ``line(_:)`` does.
    static func error(_ text: String) {
        var text = text.escapingControlCharacters + "\n"
        text.withUTF8 { _ = try? write(UnsafeRawBufferPointer($0), to: .standardError) }
    }
}

/// The pack argument every inspection command takes.
struct PackArgument: ParsableArguments {
    @Argument(help: "The pack (or any zip file).")
    var pack: String

    func open(backend: PackBackend = .mapped) throws -> Pack {
        try Pack(path: pack, backend: backend)
    }
}
