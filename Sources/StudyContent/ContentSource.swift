import AssetLibrary
import AssetPack
import Foundation

/// Where content files are read from: a store (through its locale chain), a pack, or a source
/// folder before it is packed.
public protocol ContentSource: Sendable {
    /// The file's bytes, or `nil` if the source has no such file.
    func contents(of path: String) throws -> [UInt8]?
    /// Whether the source has the file.
    func contains(_ path: String) -> Bool
    /// Paths of the files directly in `folder`.
    func files(in folder: String) -> [String]
    /// Paths of the sub-folders directly in `folder`.
    func folders(in folder: String) -> [String]
}

extension AssetView: ContentSource {
    public func contents(of path: String) throws -> [UInt8]? {
        guard let hit = lookup(path) else { return nil }
        return Array(try hit.data())
    }

    public func contains(_ path: String) -> Bool { lookup(path) != nil }

    public func files(in folder: String) -> [String] {
        Array(Set(packs.flatMap { $0.files(in: folder) })).sorted()
    }

    public func folders(in folder: String) -> [String] {
        Array(Set(packs.flatMap { $0.folders(in: folder) })).sorted()
    }
}

extension Pack: ContentSource {
    public func contents(of path: String) throws -> [UInt8]? {
        guard let entry = entry(forPath: path) else { return nil }
        return Array(try data(for: entry))
    }

    public func files(in folder: String) -> [String] {
        contentsOfFolder(folder).filter { !$0.isFolder }.map(\.path)
    }

    public func folders(in folder: String) -> [String] {
        contentsOfFolder(folder).filter(\.isFolder).map(\.path)
    }
}

/// A source folder on disk, as `packtool build` sees it before packing.
public struct FolderSource: ContentSource {
    public let root: String

    public init(root: String) { self.root = root }

    public func contents(of path: String) throws -> [UInt8]? {
        guard contains(path) else { return nil }
        return Array(try Data(contentsOf: URL(fileURLWithPath: root + "/" + path)))
    }

    public func contains(_ path: String) -> Bool {
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isFolder) && !isFolder.boolValue
    }

    public func files(in folder: String) -> [String] {
        children(of: folder).filter(contains)
    }

    public func folders(in folder: String) -> [String] {
        children(of: folder).filter { path in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isFolder) && isFolder.boolValue
        }
    }

    private func children(of folder: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root + "/" + folder)) ?? []
        return names.filter { !$0.hasPrefix(".") }.map { folder.isEmpty ? $0 : folder + "/" + $0 }.sorted()
    }
}

/// Several sources searched in order (a pack and its base pack).
public struct LayeredSource: ContentSource {
    public let layers: [any ContentSource]

    public init(_ layers: [any ContentSource]) { self.layers = layers }

    public func contents(of path: String) throws -> [UInt8]? {
        for layer in layers { if let found = try layer.contents(of: path) { return found } }
        return nil
    }

    public func contains(_ path: String) -> Bool { layers.contains { $0.contains(path) } }

    public func files(in folder: String) -> [String] { Array(Set(layers.flatMap { $0.files(in: folder) })).sorted() }

    public func folders(in folder: String) -> [String] {
        Array(Set(layers.flatMap { $0.folders(in: folder) })).sorted()
    }
}
