import SystemPackage

/// What a folder on disk holds, for the tools that read source folders before they are packed
/// (build-time content checks): names and kinds, read through the system layer.
package enum SourceFolder {
    /// The kind of a folder item.
    package enum Kind: Sendable {
        case file
        case folder
        /// A FIFO, socket or device: never opened.
        case other
    }

    /// The items of `folder` (following symbolic links), hidden ones left out, sorted by name;
    /// empty when the folder cannot be read.
    package static func items(in folder: String) -> [(name: String, kind: Kind)] {
        guard case .success(let descriptor) = Platform.system({
            try FileDescriptor.open(folder, .readOnly, options: [.directory, .closeOnExec])
        }), let stream = try? Platform.FolderStream(taking: descriptor)
        else { return [] }
        var items: [(name: String, kind: Kind)] = []
        while let bytes = stream.next() {
            guard bytes.first != UInt8(ascii: "."), let name = String(validating: bytes, as: UTF8.self) else { continue }
            let status = try? FilePath(name).stat(relativeTo: stream.descriptor, flags: [])
            let kind: Kind =
                switch status?.type {
                case .regular?: .file
                case .directory?: .folder
                default: .other
                }
            items.append((name, kind))
        }
        return items.sorted { $0.name < $1.name }
    }

    /// The kind of the item at `path`, or `nil` if there is none.
    package static func kind(of path: String) -> Kind? {
        guard let status = try? FilePath(path).stat() else { return nil }
        switch status.type {
        case .regular: return .file
        case .directory: return .folder
        default: return .other
        }
    }
}
