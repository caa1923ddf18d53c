// libFuzzer target over the reader: the hostile suite's `exercise` on every input (open, list,
// look up and read every entry, verify; no extraction). Built by Scripts/fuzz together with the
// library's sources and the hostile suite (one module, FUZZ_STANDALONE).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPackReader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let pack = try? Pack(bytes: UnsafeBufferPointer(start: data, count: size), name: "fuzz-input") else { return 0 }
    return exercise(pack, extractTo: nil).checksum == Int.min ? 1 : 0
}
