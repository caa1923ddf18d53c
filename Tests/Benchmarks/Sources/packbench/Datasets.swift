import AssetPack
import CBenchSQLite
import Foundation

/// One benchmark dataset in its four forms: loose files, our pack, an Info-ZIP `zip -0`
/// archive and an SQLite table `files(name TEXT PRIMARY KEY, data BLOB)`.
struct Dataset: Sendable {
    let name: String
    let root: String
    /// Every file's path relative to ``folder``, sorted.
    let names: [String]

    var folder: String { root + "/files" }
    var pack: String { root + "/dataset.pack" }
    var zip: String { root + "/infozip.zip" }
    var sqlite: String { root + "/files.sqlite" }
    var totalBytes: Int {
        names.reduce(0) { total, name in
            total + ((try? FileManager.default.attributesOfItem(atPath: folder + "/" + name)[.size] as? Int) ?? 0)
        }
    }

    static let all = ["bank600", "tree3k", "entries10k", "entries100k"]

    /// The dataset, generated (with fixed seeds) the first time and reused afterwards.
    static func prepare(_ name: String, in dataRoot: String, repository: String) throws -> Dataset {
        let root = dataRoot + "/" + name + "-v1"
        let marker = root + "/complete"
        if !FileManager.default.fileExists(atPath: marker) {
            try? FileManager.default.removeItem(atPath: root)
            try FileManager.default.createDirectory(atPath: root + "/files", withIntermediateDirectories: true)
            let start = now()
            switch name {
            case "bank600": try generateBank(in: root + "/files", repository: repository)
            case "tree3k": try generateTree(in: root + "/files")
            case "entries10k": try generateEntries(10_000, in: root + "/files")
            case "entries100k": try generateEntries(100_000, in: root + "/files")
            default: throw PackError(.invalidArgument, "unknown dataset \(name)")
            }
            let names = try listFiles(root + "/files")
            try names.joined(separator: "\n").write(toFile: root + "/names.txt", atomically: true, encoding: .utf8)
            let dataset = Dataset(name: name, root: root, names: names)
            var builder = PackBuilder(options: .init(name: name))
            try builder.addDirectory(atPath: dataset.folder)
            try builder.write(to: dataset.pack)
            guard try runProcess("/usr/bin/zip", ["-0", "-r", "-q", "-X", dataset.zip, "."], in: dataset.folder) == 0 else {
                throw PackError(.io, "zip -0 failed", at: .file(dataset.zip))
            }
            try writeSQLite(dataset)
            FileManager.default.createFile(atPath: marker, contents: Data())
            log("generated \(name): \(names.count) files in \(String(format: "%.1f", Double(now() - start) / 1e9)) s")
        }
        let names = try String(contentsOfFile: root + "/names.txt", encoding: .utf8).split(separator: "\n").map(String.init)
        return Dataset(name: name, root: root, names: names)
    }

    static func listFiles(_ folder: String) throws -> [String] {
        var names: [String] = []
        let enumerator = FileManager.default.enumerator(atPath: folder)
        while let item = enumerator?.nextObject() as? String {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder + "/" + item, isDirectory: &isFolder), !isFolder.boolValue {
                names.append(item)
            }
        }
        return names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
            throw PackError(.io, "cannot write", at: .file(path))
        }
    }

    /// The 600-question synthetic bank and its pictures (Scripts/generate-synthetic-bank).
    static func generateBank(in folder: String, repository: String) throws {
        let status = try runProcess(repository + "/Scripts/generate-synthetic-bank", [folder, "--questions", "600", "--seed", "1"])
        guard status == 0 else { throw PackError(.io, "generate-synthetic-bank failed", at: .file(folder)) }
    }

    /// A letters app: 2,699 small files (0.2–8 KB), 100 pictures at @1x/@2x/@3x (20–200 KB),
    /// one 6 MB file: 3,000 files.
    static func generateTree(in folder: String) throws {
        var random = SeededRandom(state: 3000)
        let fm = FileManager.default
        for sub in ["Strokes/latin", "Strokes/cyrillic", "Decks", "Lessons", "Images", "Media"] {
            try fm.createDirectory(atPath: folder + "/" + sub, withIntermediateDirectories: true)
        }
        for index in 0..<2699 {
            let place = ["Strokes/latin", "Strokes/cyrillic", "Decks", "Lessons"][index % 4]
            try write(random.bytes(random.next(in: 200...8192)), to: "\(folder)/\(place)/item-\(index).json")
        }
        for index in 0..<100 {
            for (suffix, scale) in [("", 1), ("@2x", 2), ("@3x", 3)] {
                let size = min(200_000, random.next(in: 20_000...60_000) * scale)
                try write(random.bytes(size), to: "\(folder)/Images/picture-\(index)\(suffix).png")
            }
        }
        try write(random.bytes(6 << 20), to: folder + "/Media/intro.mp4")
    }

    /// `count` entries of 0.2–4 KB in folders of 1,000.
    static func generateEntries(_ count: Int, in folder: String) throws {
        var random = SeededRandom(state: UInt64(count))
        for index in 0..<count {
            let sub = "\(folder)/d\(index / 1000)"
            if index % 1000 == 0 { try FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: true) }
            try write(random.bytes(random.next(in: 200...4096)), to: "\(sub)/entry-\(index).bin")
        }
    }

    static func writeSQLite(_ dataset: Dataset) throws {
        var db: OpaquePointer?
        guard sqlite3_open(dataset.sqlite, &db) == SQLITE_OK, let db else { throw PackError(.io, "sqlite3_open", at: .file(dataset.sqlite)) }
        defer { sqlite3_close(db) }
        sqlite3_exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; CREATE TABLE files(name TEXT PRIMARY KEY, data BLOB); BEGIN", nil, nil, nil)
        var statement: OpaquePointer?
        sqlite3_prepare_v2(db, "INSERT INTO files(name, data) VALUES (?, ?)", -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for name in dataset.names {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: dataset.folder + "/" + name))
            sqlite3_bind_text(statement, 1, name, -1, transient)
            _ = bytes.withUnsafeBytes { sqlite3_bind_blob(statement, 2, $0.baseAddress, Int32($0.count), transient) }
            guard sqlite3_step(statement) == SQLITE_DONE else { throw PackError(.io, "sqlite insert", at: .file(dataset.sqlite)) }
            sqlite3_reset(statement)
        }
        sqlite3_exec(db, "COMMIT", nil, nil, nil)
    }
}

func log(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
