// The build-tool plugin: every folder `Packs/NAME/` in a target's folder becomes `NAME.pack`, a
// resource of that target (`Bundle.module.url(forResource: "NAME", withExtension: "pack")`).
//
// One build command per pack, run by SwiftPM (or Xcode) only when one of its inputs changed:
// every file of the pack's folder (the folder itself would be tracked by its own time only), its
// `.pack.json`, and the folders its settings name as base or reference. The folder is passed as
// the argument (thousands of paths would overflow a command line); the one declared output is the
// pack, in the plugin's work folder; `packtool build` keeps its stamp and temporary files beside
// it, hidden and undeclared, so they never become resources. Content errors come back as
// `FILE:LINE: error: message` lines, which SwiftPM and Xcode show beside the file.
import Foundation
import PackagePlugin

@main
struct AssetPackPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        guard let module = target as? SourceModuleTarget else { return [] }
        return try Self.commands(
            packs: module.directoryURL.appendingPathComponent("Packs"), outputDirectory: context.pluginWorkDirectoryURL,
            packtool: try context.tool(named: "packtool").url)
    }

    /// A build command for each folder in `packs` (none when there is no such folder). The packs
    /// go in `outputDirectory`; packtool's stamps and temporary files in a folder beside it, since
    /// SwiftPM plans the build again when files appear in the output folder.
    static func commands(packs: URL, outputDirectory: URL, packtool: URL) throws -> [Command] {
        let work = outputDirectory.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(outputDirectory.lastPathComponent + "-work")
        let manager = FileManager.default
        var isFolder: ObjCBool = false
        guard manager.fileExists(atPath: packs.path, isDirectory: &isFolder), isFolder.boolValue else { return [] }
        var commands: [Command] = []
        for name in try manager.contentsOfDirectory(atPath: packs.path).sorted() where !name.hasPrefix(".") {
            let folder = packs.appendingPathComponent(name)
            guard manager.fileExists(atPath: folder.path, isDirectory: &isFolder), isFolder.boolValue else { continue }
            var inputs = files(in: folder)
            for related in relatedFolders(of: folder) { inputs += files(in: related) }
            let output = outputDirectory.appendingPathComponent(name + ".pack")
            commands.append(
                .buildCommand(
                    displayName: "Packing \(name)", executable: packtool,
                    arguments: [
                        "build", folder.path, "-o", output.path, "--message-format", "compiler", "--work-directory",
                        work.path,
                    ],
                    inputFiles: inputs, outputFiles: [output]))
        }
        return commands
    }

    /// What the builder reads: every file below `folder` but hidden ones (which it skips), and
    /// the folder's `.pack.json`.
    static func files(in folder: URL) -> [URL] {
        var found: [URL] = []
        let settings = folder.appendingPathComponent(".pack.json")
        if FileManager.default.fileExists(atPath: settings.path) { found.append(settings) }
        guard
            let walker = FileManager.default.enumerator(
                at: folder, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
        else { return found }
        for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
            found.append(url)
        }
        return found.sorted { $0.path < $1.path }
    }

    /// The folders a pack's `.pack.json` names as `base` or `reference` (their content is
    /// checked against when the pack is built).
    static func relatedFolders(of folder: URL) -> [URL] {
        guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent(".pack.json").path),
            let settings = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return [] }
        return ["base", "reference"].compactMap { key in
            guard let path = settings[key] as? String else { return nil }
            let url = path.hasPrefix("/") ? URL(fileURLWithPath: path) : folder.appendingPathComponent(path).standardized
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) && isFolder.boolValue ? url : nil
        }
    }
}

#if canImport(XcodeProjectPlugin)
// Xcode app targets (XcodeProjectPlugin, Xcode 15 and later). Written from Apple's documentation
// of XcodeBuildToolPlugin; it cannot be compiled on Linux, where this project is built and tested.
// The packs' folders are `Packs/` inside the target's own folder of the project (the folder named
// after the target), or `Packs/` beside the project; the outputs are added to the app bundle.
import XcodeProjectPlugin

extension AssetPackPlugin: XcodeBuildToolPlugin {
    func createBuildCommands(context: XcodePluginContext, target: XcodeTarget) throws -> [Command] {
        let project = context.xcodeProject.directoryURL
        let candidates = [project.appendingPathComponent(target.displayName).appendingPathComponent("Packs"), project.appendingPathComponent("Packs")]
        let packtool = try context.tool(named: "packtool").url
        for packs in candidates {
            let commands = try Self.commands(packs: packs, outputDirectory: context.pluginWorkDirectoryURL, packtool: packtool)
            if !commands.isEmpty { return commands }
        }
        return []
    }
}
#endif
