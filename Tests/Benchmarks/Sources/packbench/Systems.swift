import AssetPack
import CBenchSQLite
import CBenchZip
import CReferenceReader
import Foundation
import ZIPFoundation

/// Touches every byte (a sum in 8-byte words), the same way for every system: one compiled
/// copy, never inlined (inlined into one caller and passed as a closure by another, the two
/// copies were optimized differently and small reads differed by 2x for that alone).
@inline(never)
func touch(_ bytes: UnsafeRawBufferPointer) -> Int {
    var sum: UInt64 = 0
    let words = bytes.count / 8
    if let base = bytes.baseAddress {
        for index in 0..<words { sum &+= base.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self) }
        for index in words * 8..<bytes.count { sum &+= UInt64(base.load(fromByteOffset: index, as: UInt8.self)) }
    }
    return Int(truncatingIfNeeded: sum) &+ bytes.count
}

/// Keeps checksums alive so the optimizer cannot drop the reads: a function compiled without
/// optimization, so its argument must be computed, and no shared state.
@_optimize(none)
func consume(_ value: Int) {}

/// Reads every item once with `read` (checksum, bytes); returns the bytes read.
func scanAll<S: Sequence>(_ items: S, _ read: (S.Element) -> (checksum: Int, bytes: Int)) -> Int {
    var total = 0
    for item in items {
        let (checksum, bytes) = read(item)
        consume(checksum)
        total += bytes
    }
    return total
}

/// A reader under test: opened (that is the open workload), then asked for entries by name.
protocol BenchReader: AnyObject {
    /// Reads the entry `names[index]` and touches every byte; returns a checksum (-1 on failure).
    func read(_ index: Int) -> Int
    /// Reads every entry once; returns the bytes read.
    func scan() -> Int
}

/// Names in the forms the systems take: Swift strings and NUL-terminated C strings.
final class Names: Sendable {
    let strings: [String]
    let cStrings: [ContiguousArray<CChar>]
    let fullPaths: [ContiguousArray<CChar>]

    init(_ dataset: Dataset) {
        strings = dataset.names
        cStrings = dataset.names.map { ContiguousArray($0.utf8CString) }
        fullPaths = dataset.names.map { ContiguousArray((dataset.folder + "/" + $0).utf8CString) }
    }
}

struct BenchSystem: Sendable {
    let name: String
    let open: @Sendable (Dataset, Names) throws -> BenchReader

    static let all: [BenchSystem] = [
        BenchSystem(name: "assetpack") { dataset, names in try OurReader(dataset, names) },
        BenchSystem(name: "c-reference") { dataset, names in try ReferenceReader(dataset, names) },
        BenchSystem(name: "libzip") { dataset, names in try LibzipReader(dataset, names) },
        BenchSystem(name: "zipfoundation") { dataset, names in try ZIPFoundationReader(dataset, names) },
        BenchSystem(name: "filesystem") { dataset, names in FileSystemReader(dataset, names) },
        BenchSystem(name: "sqlite") { dataset, names in try SQLiteReader(dataset, names) },
    ]
}

struct BenchFailure: Error, CustomStringConvertible {
    var description: String
}

final class OurReader: BenchReader {
    let pack: Pack
    let names: Names

    init(_ dataset: Dataset, _ names: Names) throws {
        pack = try Pack(path: dataset.pack)
        self.names = names
    }

    func read(_ index: Int) -> Int {
        guard let data = try? pack.data(forPath: names.strings[index]) else { return -1 }
        return data.withUnsafeBytes(touch)
    }

    func scan() -> Int {
        var total = 0
        for entry in pack.entries {
            guard let data = try? pack.data(for: entry) else { continue }
            consume(data.withUnsafeBytes(touch))
            total += data.count
        }
        return total
    }
}

final class ReferenceReader: BenchReader {
    var pack = ref_pack()
    let names: Names

    init(_ dataset: Dataset, _ names: Names) throws {
        self.names = names
        guard ref_open(dataset.pack, &pack) == 0 else { throw BenchFailure(description: "ref_open failed") }
    }

    deinit { ref_close(&pack) }

    func read(_ index: Int) -> Int {
        var size = 0
        let name = names.cStrings[index]
        let found = name.withUnsafeBufferPointer { ref_lookup(&pack, $0.baseAddress, $0.count - 1, &size) }
        guard let found else { return -1 }
        return touch(UnsafeRawBufferPointer(start: found, count: size))
    }

    func scan() -> Int {
        var total = 0
        for index in 0..<pack.count {
            let entry = pack.entries[index]
            consume(touch(UnsafeRawBufferPointer(start: pack.base + Int(entry.offset), count: Int(entry.size))))
            total += Int(entry.size)
        }
        return total
    }
}

final class LibzipReader: BenchReader {
    let archive: OpaquePointer
    let names: Names
    var buffer = [UInt8](repeating: 0, count: 8 << 20)

    init(_ dataset: Dataset, _ names: Names) throws {
        var error: Int32 = 0
        guard let archive = zip_open(dataset.zip, ZIP_RDONLY, &error) else {
            throw BenchFailure(description: "zip_open failed: \(error)")
        }
        self.archive = archive
        self.names = names
    }

    deinit { zip_discard(archive) }

    /// Reads entry `index`; returns the checksum and the bytes read.
    private func readIndex(_ index: Int64) -> (checksum: Int, bytes: Int) {
        guard index >= 0, let file = zip_fopen_index(archive, UInt64(index), 0) else { return (-1, 0) }
        defer { zip_fclose(file) }
        var total = 0
        var sum = 0
        while true {
            let got = buffer.withUnsafeMutableBytes { zip_fread(file, $0.baseAddress, UInt64($0.count)) }
            if got <= 0 { break }
            sum &+= buffer.withUnsafeBytes { touch(UnsafeRawBufferPointer(rebasing: $0[0..<Int(got)])) }
            total += Int(got)
        }
        return (sum, total)
    }

    func read(_ index: Int) -> Int {
        readIndex(names.cStrings[index].withUnsafeBufferPointer { zip_name_locate(archive, $0.baseAddress, 0) }).checksum
    }

    func scan() -> Int { scanAll(0..<zip_get_num_entries(archive, 0), readIndex) }
}

final class ZIPFoundationReader: BenchReader {
    let archive: Archive
    let names: Names

    init(_ dataset: Dataset, _ names: Names) throws {
        archive = try Archive(url: URL(fileURLWithPath: dataset.zip), accessMode: .read)
        self.names = names
    }

    /// Extracts `entry` (CRC-checked, as ZIPFoundation does by default); returns the checksum and
    /// the bytes read.
    private func extract(_ entry: Entry) -> (checksum: Int, bytes: Int) {
        var total = 0
        var sum = 0
        do {
            _ = try archive.extract(entry) { data in
                sum &+= data.withUnsafeBytes(touch)
                total += data.count
            }
        } catch {
            return (-1, 0)
        }
        return (sum, total)
    }

    func read(_ index: Int) -> Int {
        guard let entry = archive[names.strings[index]] else { return -1 }
        return extract(entry).checksum
    }

    func scan() -> Int { scanAll(archive.filter { $0.type == .file }, extract) }
}

final class FileSystemReader: BenchReader {
    let names: Names
    var lastSize = 0
    var buffer = [UInt8](repeating: 0, count: 8 << 20)

    init(_ dataset: Dataset, _ names: Names) { self.names = names }

    func read(_ index: Int) -> Int {
        let descriptor = names.fullPaths[index].withUnsafeBufferPointer { open($0.baseAddress!, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { return -1 }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return -1 }
        let size = Int(info.st_size)
        lastSize = size
        if buffer.count < size { buffer = [UInt8](repeating: 0, count: size) }
        return buffer.withUnsafeMutableBytes { raw in
            var done = 0
            while done < size {
                let got = Glibc.read(descriptor, raw.baseAddress! + done, size - done)
                if got <= 0 { return -1 }
                done += got
            }
            return touch(UnsafeRawBufferPointer(rebasing: raw[0..<size]))
        }
    }

    func scan() -> Int {
        var total = 0
        for index in names.strings.indices {
            consume(read(index))
            total += lastSize
        }
        return total
    }
}

final class SQLiteReader: BenchReader {
    let db: OpaquePointer
    let select: OpaquePointer
    let names: Names

    init(_ dataset: Dataset, _ names: Names) throws {
        var db: OpaquePointer?
        guard sqlite3_open_v2(dataset.sqlite, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let db else {
            throw BenchFailure(description: "sqlite3_open_v2 failed")
        }
        sqlite3_exec(db, "PRAGMA mmap_size=1073741824", nil, nil, nil)
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, "SELECT data FROM files WHERE name = ?", -1, &statement, nil) == SQLITE_OK,
            let statement
        else {
            sqlite3_close(db)
            throw BenchFailure(description: "sqlite3_prepare_v2 failed")
        }
        self.db = db
        select = statement
        self.names = names
    }

    deinit {
        sqlite3_finalize(select)
        sqlite3_close(db)
    }

    func read(_ index: Int) -> Int {
        defer { sqlite3_reset(select) }
        let name = names.cStrings[index]
        name.withUnsafeBufferPointer { _ = sqlite3_bind_text(select, 1, $0.baseAddress, Int32($0.count - 1), nil) }
        guard sqlite3_step(select) == SQLITE_ROW else { return -1 }
        let size = Int(sqlite3_column_bytes(select, 0))
        return touch(UnsafeRawBufferPointer(start: sqlite3_column_blob(select, 0), count: size))
    }

    func scan() -> Int {
        var statement: OpaquePointer?
        sqlite3_prepare_v2(db, "SELECT data FROM files", -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        var total = 0
        while sqlite3_step(statement) == SQLITE_ROW {
            let size = Int(sqlite3_column_bytes(statement, 0))
            consume(touch(UnsafeRawBufferPointer(start: sqlite3_column_blob(statement, 0), count: size)))
            total += size
        }
        return total
    }
}
