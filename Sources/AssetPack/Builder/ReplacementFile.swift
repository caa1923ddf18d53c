import SystemPackage

/// Publishes a file crash-safely, as git publishes its packs: written under a temporary name in
/// the destination's folder, checked, synced, renamed over the destination, and the folder
/// synced. The destination is always either the complete old file or the complete new one.
struct ReplacementFile {
    let destination: String
    let folder: String
    let temporaryPath: String
    private static let marker = ".tmp-"

    /// A publisher for `destination`, whose temporary file goes in `workFolder` (on the same file
    /// system: the rename must stay within it) or, when `nil`, beside the destination.
    init(destination: String, workFolder: String? = nil) throws(PackError) {
        self.destination = destination
        let slash = destination.lastIndex(of: "/")
        let folder = slash.map { $0 == destination.startIndex ? "/" : String(destination[..<$0]) } ?? "."
        self.folder = folder
        let base = slash.map { String(destination[destination.index(after: $0)...]) } ?? destination
        guard !base.isEmpty else { throw PackError(.invalidArgument, "the destination is a folder", at: .file(destination)) }
        switch Platform.system({ try FilePath(folder).stat() }) {
        case .success(let status) where status.type == .directory: break
        case .success: throw PackError(.notAFolder, "the destination's folder is not a folder", at: .file(folder))
        case .failure(let error): throw PackError.system(error, "the destination folder cannot be used", at: .file(folder))
        }
        let temporaryFolder = workFolder ?? folder
        Self.removeStale(base: base, in: temporaryFolder)
        let prefix = "." + base + Self.marker
        temporaryPath =
            (temporaryFolder == "/" ? "/" : temporaryFolder + "/") + prefix
            + "\(Platform.processID)-\(UInt32.random(in: 0...UInt32.max))"
    }

    /// Re-opens the written file and checks its records (every header, the central directory and
    /// the index, as ``Pack/verify()`` does, but not the entries' CRC-32s, which were computed
    /// from the bytes as they were written), syncs it and renames it into place.
    ///
    /// A check that fails keeps its own code, entry and offset, attributed to the destination.
    func publish(_ output: OutputFile) throws(PackError) {
        try output.flush()
        do {
            try Pack(path: temporaryPath).verifyStructure()
        } catch {
            var failed = error
            failed.location.file = destination
            failed.detail = "the written pack failed verification" + (failed.detail.isEmpty ? "" : ": " + failed.detail)
            throw failed
        }
        try output.synchronize()
        try DurableFile.rename(temporaryPath, over: destination)
    }

    /// Removes the temporary file (after a failed build).
    func discard() { Platform.removeFile(temporaryPath) }

    /// Removes temporary files left by builds of the same destination whose process is gone.
    static func removeStale(base: String, in folder: String) {
        let prefix = Array(("." + base + marker).utf8)
        guard case .success(let descriptor) = Platform.system({
            try FileDescriptor.open(folder, .readOnly, options: [.directory, .closeOnExec])
        }), let stream = try? Platform.FolderStream(taking: descriptor)
        else { return }
        while let name = stream.next() {
            guard name.starts(with: prefix) else { continue }
            let rest = name.dropFirst(prefix.count)
            guard let dash = rest.firstIndex(of: UInt8(ascii: "-")),
                let pid = Int32(String(decoding: rest[..<dash], as: UTF8.self))
            else { continue }
            if pid != Platform.processID, !Platform.processExists(pid) {
                Platform.removeFile(String(decoding: name, as: UTF8.self), in: stream.descriptor)
            }
        }
    }
}
