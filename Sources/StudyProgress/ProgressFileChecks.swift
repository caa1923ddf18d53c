import Foundation
import GRDB
import SystemPackage
import StudyEngine

// File checks: what is refused before SQLite touches a file, and how SQLite's failures read.

extension ProgressStore {

    static func wrap(_ error: any Error, path: String) -> ProgressError {
        if let error = error as? ProgressError { return error.at(file: path) }
        guard let error = error as? DatabaseError else {
            return ProgressError(.database, "\(error)", at: .file(path))
        }
        switch error.resultCode {
        case .SQLITE_NOTADB, .SQLITE_CORRUPT:
            return ProgressError(.damagedDatabase, "not a sound SQLite database (\(error.message ?? "\(error.resultCode)"))", at: .file(path))
        case .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_PERM:
            return ProgressError(.notWritable, error.message ?? "\(error.resultCode)", at: .file(path))
        default:
            return ProgressError(.database, error.message ?? "\(error)", at: .file(path))
        }
    }

    /// The 16 bytes every SQLite database file starts with.
    static let sqliteHeader = Data("SQLite format 3\0".utf8)

    /// The file's first 16 bytes: empty for an empty file, nil if it cannot be opened.
    ///
    /// Another process may be creating the database at this moment: its file can be seen longer
    /// than what has been written into it, so the header reads as zeros, or as a prefix of SQLite's
    /// header followed by zeros. Such a header is read again for up to a second before it is
    /// believed; text or any other byte is final at once.
    static func readHeader(_ path: String) -> Data? {
        let deadline = Date().addingTimeInterval(1)
        while true {
            guard let header = readPrefix(of: path, count: 16) else { return nil }
            let beingWritten = header != sqliteHeader && !header.isEmpty
                && zip(header, sqliteHeader).allSatisfy { read, expected in read == expected || read == 0 }
            guard beingWritten, Date() < deadline else { return header }
            usleep(5_000)
        }
    }

    /// Up to `count` bytes from the start of the file, or `nil` if it cannot be opened (read with
    /// swift-system: `FileHandle.read(upToCount:)` needs macOS 10.15.4 and iOS 13.4).
    private static func readPrefix(of path: String, count: Int) -> Data? {
        guard let file = try? FileDescriptor.open(path, .readOnly) else { return nil }
        defer { _ = try? file.close() }
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let read = bytes.withUnsafeMutableBytes { buffer in
                try? file.read(fromAbsoluteOffset: Int64(filled), into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            }
            guard let read, read > 0 else { break }
            filled += read
        }
        return Data(bytes[..<filled])
    }

    /// Whether the file's schema was written by a newer version (a migration this one does not know).
    private static func hasNewerSchema(_ path: String, readonly: Bool) throws -> Bool {
        var configuration = Configuration()
        configuration.readonly = readonly
        configuration.busyMode = .timeout(30)
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        // Another process may be creating this file right now. Tables are only ever added, so
        // once grdb_migrations is seen its SELECT cannot fail; asked the other way round (GRDB's
        // order), the table can appear between the failed SELECT and the check.
        let superseded = try queue.read { db in
            try db.tableExists("grdb_migrations") && migrator.hasBeenSuperseded(db)
        }
        try queue.close()
        return superseded
    }

    /// Refuses, before SQLite touches anything, a folder, a file or folder that cannot be written,
    /// a file that is not a database, and a database from a newer schema.
    static func checkBeforeOpening(_ path: String) throws(ProgressError) {
        let files = FileManager.default
        var isFolder: ObjCBool = false
        if files.fileExists(atPath: path, isDirectory: &isFolder) {
            if isFolder.boolValue {
                throw ProgressError(.isFolder, "is a folder; give the database file's path", at: .file(path))
            }
            guard files.isWritableFile(atPath: path) else {
                throw ProgressError(.notWritable, "the database file is read-only", at: .file(path))
            }
            guard let header = readHeader(path) else {
                throw ProgressError(.notWritable, "cannot be opened", at: .file(path))
            }
            if header.isEmpty { return }
            guard header == sqliteHeader else {
                throw ProgressError(.damagedDatabase, "not an SQLite database (its first bytes are not SQLite's header)", at: .file(path))
            }
            do {
                let superseded: Bool
                do {
                    superseded = try hasNewerSchema(path, readonly: true)
                } catch let error as DatabaseError where error.resultCode == .SQLITE_READONLY {
                    // A process killed while writing left a WAL whose index must be rebuilt before
                    // anyone reads, which a read-only connection cannot do (SQLITE_READONLY_RECOVERY):
                    // ask again on a read-write connection, which rebuilds the index and writes no page.
                    superseded = try hasNewerSchema(path, readonly: false)
                }
                if superseded {
                    throw ProgressError(.newerSchema, "written by a newer version of this library; open it with that version", at: .file(path))
                }
            } catch let error as DatabaseError where ![.SQLITE_BUSY, .SQLITE_LOCKED, .SQLITE_NOMEM].contains(error.resultCode) {
                // The file is there and SQLite cannot read its schema: damaged, whatever the code.
                throw ProgressError(.damagedDatabase, "SQLite cannot read it (\(error.message ?? "\(error.resultCode)"))", at: .file(path))
            } catch {
                throw wrap(error, path: path)
            }
        } else {
            let folder = (path as NSString).deletingLastPathComponent
            let parent = folder.isEmpty ? "." : folder
            guard files.fileExists(atPath: parent, isDirectory: &isFolder), isFolder.boolValue else {
                throw ProgressError(.notWritable, "its folder \(parent) does not exist", at: .file(path))
            }
            guard files.isWritableFile(atPath: parent) else {
                throw ProgressError(.notWritable, "its folder \(parent) is read-only", at: .file(path))
            }
        }
    }
}
