import SystemPackage

/// A file to be packed, as it was when the source folder was listed: it has to be read as that
/// very file, unchanged.
struct ListedSourceFile: Sendable {
    /// The file's path on disk.
    var path: String
    /// The file as listed (device, inode, size, modification time).
    var listed: FileIdentity

    /// Opens the file to stream it: a non-blocking open and a status check, so something that is
    /// no longer a regular file (swapped for a FIFO after listing) is refused, never waited on.
    private func open() throws(PackError) -> FileDescriptor { try FileAccess.openRegularFile(path).0 }

    /// An error if the file is not the one listed any more (its identity now differs).
    func checkUnchanged(_ file: FileDescriptor) -> PackError? {
        let now: FileIdentity
        do {
            now = FileIdentity(try file.stat())
        } catch {
            return PackError.system(error, "cannot stat", at: .file(path))
        }
        if now.size != listed.size {
            return PackError(.fileChanged, "size was \(listed.size), now \(now.size)", at: .file(path))
        }
        guard now == listed else { return PackError(.fileChanged, "modified or replaced while being packed", at: .file(path)) }
        return nil
    }

    /// The error for a file that had more bytes than it was listed with: it grew while being
    /// packed, or its status never told its size (`/proc` files say 0).
    private func moreBytesThanListed(_ file: FileDescriptor) -> PackError {
        if let changed = checkUnchanged(file) { return changed }
        return PackError(
            .sizeMismatch, "the file has more bytes than its status says (\(listed.size)); only regular files with a true size can be packed",
            at: .file(path))
    }

    /// Reads the whole file into `buffer`, which has room for one byte more than the listed
    /// size, checking that it is still the file listed; returns the CRC-32 of the listed bytes.
    ///
    /// The hot path of a build, four system calls a file: a non-blocking open (the listing saw a
    /// regular file; one swapped for a FIFO since fails its read instead of waiting, and its
    /// identity check), one read asking for a byte more than listed (getting it means the file
    /// has more bytes than its status said), the identity check, close.
    func load(into buffer: UnsafeMutableRawBufferPointer) -> Result<UInt32, PackError> {
        let listedSize = buffer.count - 1
        let file: FileDescriptor
        switch Platform.system({ try FileDescriptor.open(path, .readOnly, options: [.nonBlocking, .closeOnExec]) }) {
        case .success(let opened): file = opened
        case .failure(let error): return .failure(PackError.system(error, "cannot open", at: .file(path)))
        }
        defer { _ = try? file.close() }
        var done = 0
        var reading = true
        // Until the end of the file or the listed size: a read that stops short of what it asked
        // for has met the end of a regular file, so a whole file usually takes one read.
        while reading {
            switch Platform.system({ try file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...])) }) {
            case .failure(let error): return .failure(PackError.system(error, "read failed", at: .file(path)))
            case .success(let count):
                done += count
                reading = count > 0 && done < listedSize
            }
        }
        if done < listedSize {
            return .failure(PackError(.fileChanged, "shrank to \(done) of \(listedSize) bytes while being packed", at: .file(path)))
        }
        if done > listedSize { return .failure(moreBytesThanListed(file)) }
        // A file that grew, shrank or was rewritten after it was listed has a new size or time.
        if let changed = checkUnchanged(file) { return .failure(changed) }
        return .success(CRC32.checksum(UnsafeRawBufferPointer(rebasing: buffer[..<listedSize])))
    }

    /// Streams the file into the pack in 1 MiB pieces (for files too large to hold in memory).
    func copy(to output: OutputFile, crc: inout CRC32) throws(PackError) {
        let file = try open()
        defer { _ = try? file.close() }
        if let changed = checkUnchanged(file) { throw changed }
        var remaining = listed.size
        while true {
            // Ask for one byte more than expected, so a file that grew is noticed.
            let want = Int(min(remaining + 1, 1 << 20))
            let got = try output.appendInPlace(upTo: want) { (buffer) throws(PackError) -> Int in
                let count: Int
                switch Platform.system({ try file.read(into: buffer) }) {
                case .success(let read): count = read
                case .failure(let error): throw PackError.system(error, "read failed", at: .file(path))
                }
                guard UInt64(count) <= remaining else { throw moreBytesThanListed(file) }
                let written = UnsafeRawBufferPointer(rebasing: buffer[..<count])
                crc.update(written)
                return count
            }
            if got == 0 { break }
            remaining -= UInt64(got)
        }
        guard remaining == 0 else {
            throw PackError(
                .fileChanged, "shrank to \(listed.size - remaining) of \(listed.size) bytes while being packed",
                at: .file(path))
        }
        if let changed = checkUnchanged(file) { throw changed }
    }
}
