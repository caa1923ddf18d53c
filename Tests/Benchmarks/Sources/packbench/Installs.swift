import Foundation
import SystemPackage

/// Copies files the way an app installer does: each file created, written and synced, and the
/// folders synced once filled. The seed's headline: an app with about 3,000 loose files took
/// about 10 minutes to install on an old iPad, packed 20-40 s.
enum Installer {
    /// Copies `files` (paths relative to `source`) into `target`, which must not exist.
    static func install(_ files: [String], from source: String, to target: String) throws {
        var folders: [String] = []
        var made = Set<String>()
        // The target's parent exists; below it, each folder is made before what it holds.
        func makeFolder(_ path: String) throws {
            guard !made.contains(path) else { return }
            if path != target, let slash = path.lastIndex(of: "/") { try makeFolder(String(path[..<slash])) }
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            made.insert(path)
            folders.append(path)
        }
        try makeFolder(target)
        for name in files {
            let destination = target + "/" + name
            if let slash = destination.lastIndex(of: "/") { try makeFolder(String(destination[..<slash])) }
            let bytes = try Data(contentsOf: URL(fileURLWithPath: source + "/" + name))
            let file = try FileDescriptor.open(
                destination, .writeOnly, options: [.create, .exclusiveCreate, .closeOnExec],
                permissions: [.ownerReadWrite, .groupRead, .otherRead])
            try file.closeAfter {
                _ = try bytes.withUnsafeBytes { try file.writeAll($0) }
                try sync(file)
            }
        }
        for folder in folders.reversed() {
            let descriptor = try FileDescriptor.open(folder, .readOnly, options: [.directory, .closeOnExec])
            try descriptor.closeAfter { try sync(descriptor) }
        }
    }

    /// fsync, through Foundation's FileHandle (the benchmark's own, not the library's layer).
    private static func sync(_ file: FileDescriptor) throws {
        try FileHandle(fileDescriptor: file.rawValue, closeOnDealloc: false).synchronize()
    }
}
