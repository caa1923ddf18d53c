import SystemPackage

/// Opening and reading files through swift-system, the way every part of the library does it.
enum FileAccess {
    /// Opens `path` read-only and checks that it is a regular file, without ever blocking.
    ///
    /// The open is non-blocking (a FIFO with no writer would otherwise wait forever), and a
    /// folder, FIFO, socket or device is refused as ``PackError/Code/notRegularFile`` before
    /// anything reads from it. Non-blocking makes no difference to reads of a regular file.
    static func openRegularFile(_ path: String) throws(PackError) -> (FileDescriptor, Stat) {
        let file: FileDescriptor
        switch Platform.system({ try FileDescriptor.open(path, .readOnly, options: [.nonBlocking, .closeOnExec]) }) {
        case .success(let opened): file = opened
        case .failure(let error): throw PackError.system(error, "cannot open", at: .file(path))
        }
        let status: Stat
        do {
            status = try file.stat()
        } catch {
            _ = try? file.close()
            throw PackError.system(error, "cannot stat", at: .file(path))
        }
        guard status.type == .regular else {
            _ = try? file.close()
            throw PackError(.notRegularFile, "it is \(describe(status.type))", at: .file(path))
        }
        return (file, status)
    }

    /// What a file of `type` is, for messages.
    static func describe(_ type: FileType) -> String {
        switch type {
        case .regular: "a regular file"
        case .directory: "a folder"
        case .fifo: "a FIFO"
        case .socket: "a socket"
        case .characterSpecial, .blockSpecial: "a device"
        case .symbolicLink: "a symbolic link"
        default: "not a regular file"
        }
    }

    /// Reads exactly `buffer.count` bytes from `file` at its current position.
    ///
    /// - Returns: how many bytes the file had (fewer than asked when it ended early).
    static func read(_ file: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
        var done = 0
        while done < buffer.count {
            switch Platform.system({ try file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...])) }) {
            case .success(0): return .success(done)
            case .success(let count): done += count
            case .failure(let error): return .failure(error)
            }
        }
        return .success(done)
    }

    /// Whether `file` has at least one more byte at its current position (read into a scratch
    /// byte): a file whose status said it was shorter than it is (`/proc` files say 0).
    static func hasMoreBytes(_ file: FileDescriptor) -> Result<Bool, Errno> {
        var scratch: UInt8 = 0
        return withUnsafeMutableBytes(of: &scratch) { byte in
            Platform.system { try file.read(into: byte) }.map { $0 > 0 }
        }
    }

    /// Writes all of `bytes` to `file` at its current position.
    static func writeAll(_ file: FileDescriptor, _ bytes: UnsafeRawBufferPointer) -> Result<Void, Errno> {
        Platform.system { _ = try file.writeAll(bytes) }
    }
}

/// The whole regular file at `path`, refusing anything but a regular file without ever blocking
/// on it (a FIFO or device given where a file is expected), and files over `limit` bytes.
///
/// For the small files the tools read whole: build settings, and content checked at build time.
package func readRegularFile(_ path: String, limit: Int = 256 << 20) throws(PackError) -> [UInt8] {
    let (file, status) = try FileAccess.openRegularFile(path)
    defer { _ = try? file.close() }
    guard status.size <= Int64(limit) else {
        throw PackError(.tooLarge, "\(status.size) bytes (at most \(limit))", at: .file(path))
    }
    var bytes = [UInt8](repeating: 0, count: Int(status.size))
    let result = bytes.withUnsafeMutableBytes { FileAccess.read(file, into: $0) }
    switch result {
    case .failure(let error): throw PackError.system(error, "read failed", at: .file(path))
    case .success(let count) where count < bytes.count:
        throw PackError(.fileChanged, "shrank to \(count) of \(bytes.count) bytes while being read", at: .file(path))
    case .success:
        if case .success(true) = FileAccess.hasMoreBytes(file) {
            throw PackError(.sizeMismatch, "the file has more bytes than its status says (\(bytes.count))", at: .file(path))
        }
        return bytes
    }
}

#if canImport(Foundation)
import Foundation

/// The file system path of a file URL.
///
/// - Throws: ``PackError/Code/invalidArgument`` for a URL that is not a file URL.
func filePath(of url: URL) throws(PackError) -> String {
    guard url.isFileURL, let path = url.withUnsafeFileSystemRepresentation({ $0.map { String(cString: $0) } }) else {
        throw PackError(.invalidArgument, "not a file URL: \(url.absoluteString)")
    }
    return path
}
#endif

/// Makes the open file `descriptor` durable as the builder does (`F_FULLFSYNC` on Apple
/// platforms, `fsync` elsewhere): for other modules that write files (delivery).
package func synchronizeDescriptor(_ descriptor: Int32) throws(PackError) {
    if case .failure(let error) = Platform.synchronize(FileDescriptor(rawValue: descriptor)) {
        throw PackError.system(error, "cannot sync")
    }
}

/// Makes the file or folder at `path` durable (its entry in a folder, after a rename).
package func synchronizePath(_ path: String) throws(PackError) {
    let file: FileDescriptor
    switch Platform.system({ try FileDescriptor.open(path, .readOnly, options: [.closeOnExec]) }) {
    case .success(let opened): file = opened
    case .failure(let error): throw PackError.system(error, "cannot open to sync", at: .file(path))
    }
    defer { _ = try? file.close() }
    if case .failure(let error) = Platform.synchronize(file) { throw PackError.system(error, "cannot sync", at: .file(path)) }
}
