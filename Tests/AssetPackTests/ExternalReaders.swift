import CAssetPackZip
import Foundation
import TestSupport
import Testing

@testable import AssetPack

/// Independent readers: libzip (with ZIP_CHECKCONS), Python's zipfile and Info-ZIP's unzip.
enum ExternalReaders {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Every entry's bytes as libzip reads them, opened with consistency checks.
    static func libzip(_ path: String) throws -> [String: [UInt8]] {
        var error: Int32 = 0
        guard let archive = zip_open(path, ZIP_CHECKCONS | ZIP_RDONLY, &error) else {
            throw Failure(description: "libzip refused \(path): error \(error)")
        }
        defer { zip_discard(archive) }
        var result: [String: [UInt8]] = [:]
        let count = zip_get_num_entries(archive, 0)
        for index in 0..<UInt64(count) {
            var stat = zip_stat_t()
            zip_stat_init(&stat)
            guard zip_stat_index(archive, index, 0, &stat) == 0, let name = stat.name else {
                throw Failure(description: "libzip cannot stat entry \(index)")
            }
            guard let file = zip_fopen_index(archive, index, 0) else {
                throw Failure(description: "libzip cannot open entry \(index)")
            }
            defer { zip_fclose(file) }
            var bytes = [UInt8](repeating: 0, count: Int(stat.size))
            var done = 0
            while done < bytes.count {
                let got = bytes.withUnsafeMutableBytes { zip_fread(file, $0.baseAddress! + done, UInt64($0.count - done)) }
                guard got > 0 else { throw Failure(description: "libzip read failed on entry \(index)") }
                done += Int(got)
            }
            result[String(cString: name)] = bytes
        }
        return result
    }

    /// What Python's zipfile sees: testzip() result and per-entry facts, including each
    /// entry's data offset computed from its local header.
    struct PythonEntry: Decodable {
        var name: String
        var method: Int
        var flags: Int
        var mode: Int
        var dateTime: [Int]
        var size: Int
        var dataOffset: Int
        var sha256: String
    }

    struct PythonView: Decodable {
        var testzip: String?
        var comment: String
        var entries: [PythonEntry]
    }

    static func python(_ path: String) throws -> PythonView {
        let script = """
            import hashlib, json, struct, sys, zipfile
            z = zipfile.ZipFile(sys.argv[1])
            bad = z.testzip()
            raw = open(sys.argv[1], 'rb')
            out = []
            for i in z.infolist():
                raw.seek(i.header_offset)
                h = raw.read(30)
                n, e = struct.unpack('<HH', h[26:30])
                out.append({'name': i.filename, 'method': i.compress_type, 'flags': i.flag_bits,
                            'mode': i.external_attr >> 16, 'dateTime': list(i.date_time), 'size': i.file_size,
                            'dataOffset': i.header_offset + 30 + n + e,
                            'sha256': hashlib.sha256(z.read(i)).hexdigest()})
            print(json.dumps({'testzip': bad, 'comment': z.comment.decode('latin-1'), 'entries': out}))
            """
        let result = try run("python3", ["-c", script, path])
        guard result.status == 0 else { throw Failure(description: "python zipfile refused \(path): \(result.stderr)") }
        return try JSONDecoder().decode(PythonView.self, from: result.stdout)
    }

    /// `unzip -t`: passes only if it reports no errors.
    static func unzipTest(_ path: String) throws {
        let result = try run("unzip", ["-t", path])
        guard result.status == 0, result.output.contains("No errors detected") else {
            throw Failure(description: "unzip -t failed on \(path): \(result.output.suffix(400)) \(result.stderr)")
        }
    }

    static func sha256(_ bytes: [UInt8]) -> String {
        EntryHash.of(bytes).hex
    }
}
