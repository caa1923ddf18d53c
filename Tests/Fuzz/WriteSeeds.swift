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
            let path = folder + "/case-\(number)"
            let file = fopen(path, "wb")
            guard let file else { continue }
            _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
            fclose(file)
            written += 1
        }
        // forgePack leaves its working files in the folder; they are valid packs, good seeds too.
        print("wrote \(written) seed inputs to \(folder)")
    }
}
