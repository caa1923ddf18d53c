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

    /// A file found: its path relative to the folder walked, and the file.
    typealias Listed = (relativePath: String, source: ListedSourceFile)

    /// Every regular file below `folder`: its path relative to `folder`, and the file.
    static func files(in folder: String) throws(PackError) -> [Listed] {
        try walk(folder, relative: "", visited: [], inParallel: false)
    }

    /// What a folder's name turned out to be.
    private enum Item {
        case file(Listed)
        case folder(path: String, relative: String)
        case failed(PackError)
    }

    /// The files below `folder`, in byte order of their names. Subfolders are walked on the
    /// machine's cores at once (a folder of 100 subfolders of 1,000 files lists in about half the
    /// time); the results are put together in order, and the first problem in that order is the
    /// one reported.
    /// - Parameter inParallel: whether this walk already runs beside its sibling folders' (its
    ///   stats then stay on its own thread).
    private static func walk(
        _ folder: String, relative: String, visited: [Identity], inParallel: Bool
    ) throws(PackError) -> [Listed] {
        let descriptor: FileDescriptor
        switch Platform.system({ try FileDescriptor.open(folder, .readOnly, options: [.directory, .closeOnExec]) }) {
        case .success(let opened): descriptor = opened
        case .failure(.notDirectory): throw PackError(.notAFolder, at: .file(folder))
        case .failure(let error): throw PackError.system(error, "cannot read folder", at: .file(folder))
        }
        let stream: Platform.FolderStream
        do {
            stream = try Platform.FolderStream(taking: descriptor)
        } catch {
            throw PackError.system(error, "cannot read folder", at: .file(folder))
        }
        let status: Stat
        do {
            status = try stream.descriptor.stat()
        } catch {
            throw PackError.system(error, "cannot stat", at: .file(folder))
        }
        let identity = Identity(device: FileIdentity(status).device, inode: FileIdentity(status).inode)
        guard !visited.contains(identity) else {
            throw PackError(.symbolicLinkLoop, "a symbolic link leads back into a folder being packed", at: .file(folder))
        }
        let visited = visited + [identity]
        // Names with their NUL: fstatat takes them as they are, and a NUL sorts before every
        // byte, so comparing them whole is byte order with the shorter name first.
        var names: [[UInt8]] = []
        while let name = stream.next(terminated: true) {
            if name.first == UInt8(ascii: ".") { continue }  // hidden
            names.append(name)
        }
        names.sort(by: byteOrder)
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        let statuses = statAll(names, in: stream.descriptor, lanes: inParallel || names.count < 256 ? 1 : SourceReader.lanes)
        var items: [Item] = []
        items.reserveCapacity(names.count)
        for (terminated, status) in zip(names, statuses) {
            let name = terminated.dropLast()
            let ascii = name.allSatisfy { $0 < 0x80 }
            guard let display = ascii ? String(decoding: name, as: UTF8.self) : String(validating: name, as: UTF8.self)
            else {
                items.append(
                    .failed(
                        PackError(
                            .unsafeName, "the file name is not valid UTF-8",
                            at: .file(prefix + String(decoding: name, as: UTF8.self)))))
                break
            }
            let fullPath = prefix + display
            let relativePath = relative.isEmpty ? display : relative + "/" + display
            switch status {
            case .failure(let error):
                items.append(.failed(PackError.system(error, "cannot stat (a broken symbolic link?)", at: .file(fullPath))))
            case .success(let entry) where entry.type == .directory:
                items.append(.folder(path: fullPath, relative: relativePath))
            case .success(let entry) where entry.type == .regular:
                items.append(.file((relativePath, ListedSourceFile(path: fullPath, listed: FileIdentity(entry)))))
            case .success(let entry):
                items.append(
                    .failed(
                        PackError(
                            .notRegularFile, "it is \(FileAccess.describe(entry.type)), neither a file nor a folder",
                            at: .file(fullPath))))
            }
            if case .failed = items.last { break }
        }
        // The subfolders, at once.
        let folders = items.compactMap { item -> (path: String, relative: String)? in
            if case .folder(let path, let relative) = item { return (path, relative) }
            return nil
        }
        let results = DisjointWrites(UnsafeMutableBufferPointer<Result<[Listed], PackError>>.allocate(capacity: folders.count))
        defer {
            results.buffer.deinitialize()
            results.buffer.deallocate()
        }
        results.buffer.initialize(repeating: .success([]))
        if folders.count > 1 {
            DispatchQueue.concurrentPerform(iterations: folders.count) { index in
                results.buffer[index] = Result { () throws(PackError) in
                    try walk(folders[index].path, relative: folders[index].relative, visited: visited, inParallel: true)
                }
            }
        } else if let only = folders.first {
            results.buffer[0] = Result { () throws(PackError) in
                try walk(only.path, relative: only.relative, visited: visited, inParallel: inParallel)
            }
        }
        var files: [Listed] = []
        var next = 0
        for item in items {
            switch item {
            case .file(let listed): files.append(listed)
            case .failed(let error): throw error
            case .folder:
                files += try results.buffer[next].get()
                next += 1
            }
        }
        return files
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
    private static func statAll(_ names: [[UInt8]], in folder: FileDescriptor, lanes: Int) -> [Result<Stat, Errno>] {
        let results = DisjointWrites(
            UnsafeMutableBufferPointer<Result<Stat, Errno>>.allocate(capacity: names.count))
        defer {
            results.buffer.deinitialize()
            results.buffer.deallocate()
        }
        results.buffer.initialize(repeating: .failure(.ioError))
        DispatchQueue.concurrentPerform(iterations: lanes) { lane in
            for index in stride(from: lane, to: names.count, by: lanes) {
                results.buffer[index] = names[index].withUnsafeBufferPointer { name in
                    name.withMemoryRebound(to: CChar.self) { name in
                        guard let start = name.baseAddress else { return .failure(.invalidArgument) }
                        return Platform.status(of: start, in: folder)
                    }
                }
            }
        }
        return Array(results.buffer)
    }
}
