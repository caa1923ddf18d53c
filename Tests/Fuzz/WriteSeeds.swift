// Writes the hostile-input suite's cases and a few valid packs as the fuzzer's seed corpus.
#if canImport(Glibc)
import Glibc
#endif

@main
struct WriteSeeds {
    static func main() throws {
        let folder = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "corpus"
        var written = 0
        for (number, testCase) in HostileCase.all.enumerated() {
            let bytes = try testCase.make(folder)
            write(bytes, to: folder + "/reader-\(number)")
            // The layout target: the tail offset a catalog would name (where the index is), then the file.
            let tail = (try? Pack(bytes: bytes, name: "seed")).flatMap { try? PackLayout.tailOffset(of: $0) } ?? 0
            write((0..<8).map { UInt8(truncatingIfNeeded: tail >> (8 * UInt64($0))) } + bytes, to: folder + "/layout-\(number)")
            written += 1
        }
        // forgePack leaves its working files in the folder; they are valid packs, good seeds too.
        print("wrote \(written) seed inputs for each target to \(folder)")
    }

    static func write(_ bytes: [UInt8], to path: String) {
        guard let file = fopen(path, "wb") else { return }
        _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        fclose(file)
    }
}
