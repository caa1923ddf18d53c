// The one file that talks to the C library directly: the calls swift-system (FileDescriptor,
// FilePath, Errno, Stat) does not wrap. Each call that differs between platforms has a written
// branch per platform. The Darwin branches follow Apple's headers (<sys/mman.h>, <fcntl.h>,
// <dirent.h>, <unistd.h>) and man pages; they are compiled on Linux only in this project's CI.
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("AssetPack runs on Apple platforms and on Linux (Glibc or Musl)")
#endif
import CAssetPackZlib
import SystemPackage

/// System calls that swift-system does not offer, written once per platform.
///
/// Every function returns the system's error as an `Errno` read right after the call that
/// failed, and retries calls interrupted by a signal (`EINTR`) in one place, ``retrying(_:)``.
enum Platform {
    // MARK: - Errors and interrupted calls

    /// Runs `call` again while it fails with `EINTR`; on any other failure (a result of -1),
    /// returns the `errno` it set, read before anything else can change it.
    @inline(__always)
    static func retrying<Result: BinaryInteger>(_ call: () -> Result) -> Swift.Result<Result, Errno> {
        while true {
            let result = call()
            guard result == -1 else { return .success(result) }
            let code = errno
            if code == EINTR { continue }
            return .failure(Errno(rawValue: code))
        }
    }

    /// Converts a swift-system call (which throws only `Errno`) into a typed result.
    @inline(__always)
    static func system<T>(_ call: () throws -> T) -> Swift.Result<T, Errno> {
        do {
            return .success(try call())
        } catch let error as Errno {
            return .failure(error)
        } catch {
            return .failure(.ioError)
        }
    }

    // MARK: - Memory

    /// The size of a virtual memory page.
    static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// The number of processors online (at least 1).
    static let processorCount = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))

    /// Maps `count` bytes of `file` read-only and private (`mmap`). The mapping survives closing
    /// the descriptor.
    static func mapReadOnly(_ file: FileDescriptor, count: Int) -> Swift.Result<UnsafeRawPointer, Errno> {
        guard let pointer = mmap(nil, count, PROT_READ, MAP_PRIVATE, file.rawValue, 0), pointer != MAP_FAILED else {
            return .failure(Errno(rawValue: errno))
        }
        return .success(UnsafeRawPointer(pointer))
    }

    /// Removes a mapping made by ``mapReadOnly(_:count:)`` (`munmap`).
    static func unmap(_ base: UnsafeRawPointer, count: Int) {
        munmap(UnsafeMutableRawPointer(mutating: base), count)
    }

    /// Tells the kernel the mapped pages wholly inside `range` of the mapping at `base` are not
    /// needed now (`madvise(MADV_DONTNEED)`): they leave resident memory and are read again from
    /// the file if touched. A hint; on Darwin the pages may stay until memory is short.
    static func discardPages(of base: UnsafeRawPointer, in range: Range<Int>) {
        let start = (range.lowerBound + pageSize - 1) / pageSize * pageSize
        let end = range.upperBound / pageSize * pageSize
        guard end > start else { return }
        madvise(UnsafeMutableRawPointer(mutating: base + start), end - start, MADV_DONTNEED)
    }

    /// `count` bytes from the C heap, or `nil` when the system cannot provide them (`malloc`;
    /// Swift's own allocation traps instead, and sizes here come from files).
    static func allocate(byteCount count: Int) -> UnsafeMutableRawPointer? { malloc(max(count, 1)) }

    /// Frees memory from ``allocate(byteCount:)``.
    static func deallocate(_ pointer: UnsafeMutableRawPointer) { free(pointer) }

    /// `memcmp`: negative, zero or positive as the bytes at `a` sort before, equal to or after
    /// those at `b`.
    @inline(__always)
    static func compare(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, count: Int) -> Int32 {
        memcmp(a, b, count)
    }

    // MARK: - Durability

    /// Makes the file's data and metadata durable.
    ///
    /// On Apple platforms `fsync` only hands the data to the drive, whose cache may still lose it
    /// on power loss; `fcntl(F_FULLFSYNC)` also flushes that cache (as SQLite does, falling back
    /// to `fsync` on file systems that do not support it). Elsewhere `fsync`. An error is final:
    /// the caller must not retry (the kernel may have dropped the dirty pages).
    static func synchronize(_ file: FileDescriptor) -> Swift.Result<Void, Errno> {
        #if canImport(Darwin)
        if fcntl(file.rawValue, F_FULLFSYNC) == 0 { return .success(()) }
        #endif
        return retrying { fsync(file.rawValue) }.map { _ in () }
    }

    /// Starts writing `length` bytes at `offset` back to the disk without waiting for them, so
    /// a later ``synchronize(_:)`` has little left to do. Linux only (`sync_file_range` with
    /// `SYNC_FILE_RANGE_WRITE`, through the zlib shim header since Glibc's module does not export
    /// it); elsewhere nothing, which only makes the final sync longer. A hint: failures are left
    /// to the final sync to report.
    static func startWriteback(_ file: FileDescriptor, offset: UInt64, length: UInt64) {
        #if os(Linux)
        _ = assetpack_start_writeback(file.rawValue, Int64(offset), Int64(length))
        #endif
    }

    /// Makes the calling thread, which must be one of its own (never a shared worker, which
    /// would keep it), yield to every other: it runs on what the others leave idle. On Linux,
    /// the thread's nice value to 19 (`setpriority` with 0 names the calling thread there); on
    /// Apple platforms nothing, as the thread's quality of service (`.utility`) already does
    /// it. A hint: a failure changes only the speed.
    static func yieldToOtherThreads() {
        #if canImport(Glibc)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
        #elseif canImport(Musl)
        _ = setpriority(PRIO_PROCESS, 0, 19)
        #endif
    }

    /// Takes an exclusive advisory lock on `file` (`flock(LOCK_EX)`, with `LOCK_NB` unless
    /// `wait`): `false` when another open file description holds it and `wait` is off. Locks
    /// by `flock` belong to the open file and go when it is closed or its process ends.
    static func lock(_ file: FileDescriptor, wait: Bool) -> Swift.Result<Bool, Errno> {
        let operation = LOCK_EX | (wait ? 0 : LOCK_NB)
        switch retrying({ flock(file.rawValue, Int32(operation)) }) {
        case .success: return .success(true)
        case .failure(let error) where error == .wouldBlock: return .success(false)
        case .failure(let error): return .failure(error)
        }
    }

    // MARK: - Files relative to an open folder

    /// Opens `name` relative to the open folder `folder` (`openat`).
    static func open(
        _ name: String, in folder: FileDescriptor, _ mode: FileDescriptor.AccessMode,
        options: FileDescriptor.OpenOptions, permissions: FilePermissions = [.ownerReadWrite, .groupRead, .otherRead]
    ) -> Swift.Result<FileDescriptor, Errno> {
        retrying {
            openat(folder.rawValue, name, mode.rawValue | options.rawValue, permissions.rawValue)
        }.map(FileDescriptor.init(rawValue:))
    }

    /// Creates the folder `name` with mode 0755, relative to `folder` or, when `nil`, to the
    /// working directory (`mkdirat`, `mkdir`).
    static func makeFolder(_ name: String, in folder: FileDescriptor? = nil) -> Swift.Result<Void, Errno> {
        let mode = mode_t(0o755)
        return retrying {
            if let folder { return mkdirat(folder.rawValue, name, mode) }
            return mkdir(name, mode)
        }.map { _ in () }
    }

    /// Renames `source` to `target`, both relative to `folder` (`renameat`), or to the working
    /// directory when `folder` is `nil` (`rename`). Replaces `target` atomically.
    static func rename(_ source: String, to target: String, in folder: FileDescriptor? = nil) -> Swift.Result<Void, Errno> {
        retrying {
            if let folder { return renameat(folder.rawValue, source, folder.rawValue, target) }
            return renameInWorkingDirectory(source, target)
        }.map { _ in () }
    }

    /// Removes the file `name` relative to `folder`, or to the working directory (`unlinkat`,
    /// `unlink`). Failures are ignored: callers use it to clean up.
    static func removeFile(_ name: String, in folder: FileDescriptor? = nil) {
        if let folder {
            _ = unlinkat(folder.rawValue, name, 0)
        } else {
            _ = unlink(name)
        }
    }

    /// Removes the empty folder `name` relative to `folder`, or to the working directory
    /// (`unlinkat(AT_REMOVEDIR)`, `rmdir`). Failures are ignored: callers use it to clean up.
    static func removeFolder(_ name: String, in folder: FileDescriptor? = nil) {
        if let folder {
            _ = unlinkat(folder.rawValue, name, AT_REMOVEDIR)
        } else {
            _ = rmdir(name)
        }
    }

    /// The status of the file `name` (NUL-terminated) in the open folder `folder`, following a
    /// symbolic link (`fstatat`): the folder walk's one call per file, with no path to build.
    @inline(__always)
    static func status(of name: UnsafePointer<CChar>, in folder: FileDescriptor) -> Swift.Result<Stat, Errno> {
        var raw = CInterop.Stat()
        return retrying { fstatat(folder.rawValue, name, &raw, 0) }.map { _ in Stat(rawValue: raw) }
    }

    // MARK: - Reading folders

    /// The names in an open folder (`fdopendir`, `readdir`, `closedir`), without `.` and `..`.
    ///
    /// Takes ownership of the descriptor: it is closed with the stream.
    final class FolderStream {
        #if canImport(Darwin)
        /// Darwin declares `DIR` in full.
        private typealias Handle = UnsafeMutablePointer<DIR>
        #else
        /// Glibc and Musl keep `DIR` opaque.
        private typealias Handle = OpaquePointer
        #endif
        private let stream: Handle
        /// The folder's descriptor, valid while the stream lives (`dirfd`).
        let descriptor: FileDescriptor

        init(taking folder: FileDescriptor) throws(Errno) {
            guard let stream = fdopendir(folder.rawValue) else {
                let code = Errno(rawValue: errno)
                _ = try? folder.close()
                throw code
            }
            self.stream = stream
            descriptor = folder
        }

        deinit { closedir(stream) }

        /// The next name's bytes, or `nil` at the end; with `terminated`, followed by a NUL (for
        /// a call that takes a C string). The name is read in place: a `dirent` is only as long
        /// as its name, so copying the whole fixed-size `d_name` field (as `item.pointee` would)
        /// reads past the end of the last entry in the buffer.
        func next(terminated: Bool = false) -> [UInt8]? {
            while let item = readdir(stream) {
                guard let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name) else { return nil }
                let name = UnsafeRawPointer(item).advanced(by: offset).assumingMemoryBound(to: CChar.self)
                let length = strlen(name)
                if length == 1 && name[0] == 0x2E || length == 2 && name[0] == 0x2E && name[1] == 0x2E { continue }
                return Array(UnsafeRawBufferPointer(start: name, count: terminated ? length + 1 : length))
            }
            return nil
        }
    }

    // MARK: - Processes

    /// This process's id.
    static var processID: Int32 { getpid() }

    /// Whether a process with id `pid` exists (`kill(pid, 0)` does not fail with `ESRCH`).
    static func processExists(_ pid: Int32) -> Bool {
        kill(pid, 0) == 0 || errno != ESRCH
    }
}

/// `rename(2)`, under a name that does not clash with ``Platform/rename(_:to:in:)``.
@inline(__always)
private func renameInWorkingDirectory(_ source: String, _ target: String) -> Int32 {
    #if canImport(Darwin)
    Darwin.rename(source, target)
    #elseif canImport(Glibc)
    Glibc.rename(source, target)
    #else
    Musl.rename(source, target)
    #endif
}
