import Dispatch
import SystemPackage

/// Lists the regular files under a source folder, in byte order of their names, with raw names
/// checked for UTF-8.
enum FolderWalker {
    /// Which folder (device and inode), to catch symbolic links that lead back up.
    struct Identity: Equatable {
        var device: UInt64
        var inode: UInt64
    }

    /// Every regular file below `folder`: its path relative to `folder`, and the file.
    static func files(in folder: String) throws(PackError) -> [(relativePath: String, source: SourceFile)] {
        var files: [(relativePath: String, source: SourceFile)] = []
        var visited: [Identity] = []
        try walk(folder, relative: "", visited: &visited, into: &files)
        return files
    }

    private static func walk(
        _ folder: String, relative: String, visited: inout [Identity],
        into files: inout [(relativePath: String, source: SourceFile)]
    ) throws(PackError) {
        let descriptor: FileDescriptor
        switch Platform.system({ try FileDescriptor.open(folder, .readOnly, options: [.directory, .closeOnExec]) }) {
        case .success(let opened): descriptor = opened
        case .failure(.notDirectory): throw PackError(.notAFolder, path: folder)
        case .failure(let error): throw PackError.system(error, "cannot read folder", path: folder)
        }
        let stream: Platform.FolderStream
        do {
            stream = try Platform.FolderStream(taking: descriptor)
        } catch {
            throw PackError.system(error, "cannot read folder", path: folder)
        }
        let status: Stat
        do {
            status = try stream.descriptor.stat()
        } catch {
            throw PackError.system(error, "cannot stat", path: folder)
        }
        let identity = Identity(device: FileIdentity(status).device, inode: FileIdentity(status).inode)
        guard !visited.contains(identity) else {
            throw PackError(.symbolicLinkLoop, "a symbolic link leads back into a folder being packed", path: folder)
        }
        visited.append(identity)
        defer { visited.removeLast() }
        var names: [[UInt8]] = []
        while let name = stream.next() {
            if name.first == UInt8(ascii: ".") { continue }  // hidden
            names.append(name)
        }
        names.sort(by: byteOrder)
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        let statuses = statAll(names, in: stream.descriptor)
        for (name, status) in zip(names, statuses) {
            let ascii = name.allSatisfy { $0 < 0x80 }
            guard let display = ascii ? String(decoding: name, as: UTF8.self) : String(validating: name, as: UTF8.self)
            else {
                throw PackError(
                    .unsafeName, "the file name is not valid UTF-8", path: prefix + String(decoding: name, as: UTF8.self))
            }
            let fullPath = prefix + display
            let relativePath = relative.isEmpty ? display : relative + "/" + display
            let entry: Stat
            switch status {
            case .success(let found): entry = found
            case .failure(let error): throw PackError.system(error, "cannot stat (a broken symbolic link?)", path: fullPath)
            }
            switch entry.type {
            case .directory:
                try walk(fullPath, relative: relativePath, visited: &visited, into: &files)
            case .regular:
                files.append((relativePath, SourceFile(path: fullPath, listed: FileIdentity(entry))))
            default:
                throw PackError(
                    .notRegularFile, "it is \(FileAccess.describe(entry.type)), neither a file nor a folder", path: fullPath)
            }
        }
    }

    /// Byte order, shorter first on a tie (memcmp: the generic comparison is several times slower).
    private static func byteOrder(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        let order = a.withUnsafeBytes { a in
            b.withUnsafeBytes { b in
                RawBytes.compare(RawBytes(a), RawBytes(b))
            }
        }
        return order < 0
    }

    /// The status (following links) of every name in an open folder, relative to it so the
    /// kernel does not walk the whole path again, and spread over the cores for folders of many
    /// files.
    private static func statAll(_ names: [[UInt8]], in folder: FileDescriptor) -> [Result<Stat, Errno>] {
        let results = DisjointWrites(
            UnsafeMutableBufferPointer<Result<Stat, Errno>>.allocate(capacity: names.count))
        defer {
            results.buffer.deinitialize()
            results.buffer.deallocate()
        }
        results.buffer.initialize(repeating: .failure(.ioError))
        let lanes = names.count >= 256 ? SourceReader.lanes : 1
        DispatchQueue.concurrentPerform(iterations: lanes) { lane in
            for index in stride(from: lane, to: names.count, by: lanes) {
                // (A name that is not UTF-8 is refused before its status is looked at.)
                let name = FilePath(String(decoding: names[index], as: UTF8.self))
                results.buffer[index] = Result { () throws(Errno) in try name.stat(relativeTo: folder, flags: []) }
            }
        }
        return Array(results.buffer)
    }
}
