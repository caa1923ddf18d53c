// libFuzzer target over the reader: open, list, look up and read every entry, verify.
// Built by Scripts/fuzz together with the library's sources (one module, FUZZ_STANDALONE).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPackReader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)
    guard let pack = try? Pack(bytes: input, name: "fuzz-input") else { return 0 }
    _ = pack.contentsOfFolder("")
    var total = 0
    for entry in pack.entries {
        if let bytes = try? pack.data(for: entry) {
            // Touch every byte, so a view pointing outside the input would be caught by ASan.
            total &+= bytes.withUnsafeBytes { $0.reduce(0) { $0 &+ Int($1) } }
        }
        _ = pack.entry(forPath: entry.path)
        _ = pack.contentsOfFolder(entry.path)
    }
    _ = try? pack.verify()
    _ = try? pack.synthesizedIndex()
    return total == Int.min ? 1 : 0
}
