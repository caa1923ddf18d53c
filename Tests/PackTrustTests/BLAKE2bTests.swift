import Foundation
import PackTrust
import TestSupport
import Testing


/// `count` seeded random bytes.
func seeded(_ seed: UInt64, _ count: Int) -> [UInt8] {
    var random = SeededBytes(state: seed)
    return random.bytes(count)
}

@Suite("BLAKE2b-512 (RFC 7693)")
struct BLAKE2bTests {
    @Test("RFC 7693's vectors: the empty message and \"abc\", and BLAKE2b-256 of \"abc\"")
    func vectors() {
        #expect(
            hexString(BLAKE2b.hash([UInt8]()))
                == "786a02f742015903c6c6fd852552d272912f4740e15847618a86e217f71f5419d25e1031afee585313896444934eb04b903a685b1448b755d56f701afe9be2ce")
        // RFC 7693, Appendix A.
        #expect(
            hexString(BLAKE2b.hash(Array("abc".utf8)))
                == "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923")
        #expect(hexString(BLAKE2b.hash(Array("abc".utf8), digestLength: 32)) == "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319")
    }

    @Test("fed in pieces of any size, the digest is the one-shot digest")
    func pieces() {
        var random = SeededBytes(state: 7)
        let message = random.bytes(5_000)
        let whole = BLAKE2b.hash(message)
        for piece in [1, 7, 127, 128, 129, 1000] {
            var hasher = BLAKE2b()
            var start = 0
            while start < message.count {
                hasher.update(message[start..<min(start + piece, message.count)])
                start += piece
            }
            #expect(hasher.finalize() == whole, "pieces of \(piece)")
        }
    }

    @Test("agrees with Python's hashlib.blake2b on every length 0–1,000 and a few large inputs", .tags(.oracle), .fullTierOnly)
    func python() throws {
        let scratch = try Scratch()
        var random = SeededBytes(state: 2026)
        let lengths = Array(0...1000) + [65_536, 1 << 20, (1 << 20) + 77, 10_000_019]
        var blob: [UInt8] = []
        var inputs: [[UInt8]] = []
        for length in lengths {
            let input = random.bytes(length)
            inputs.append(input)
            blob += input
        }
        try scratch.write("blob", blob)
        let script = """
            import hashlib, sys
            data = open(sys.argv[1], 'rb').read()
            start = 0
            for n in map(int, sys.argv[2].split(',')):
                print(hashlib.blake2b(data[start:start + n]).hexdigest())
                start += n
            """
        let result = try run("python3", ["-c", script, scratch.url("blob"), lengths.map(String.init).joined(separator: ",")])
        #expect(result.status == 0, "\(result.stderr)")
        let expected = result.output.split(separator: "\n").map(String.init)
        #expect(expected.count == inputs.count)
        for (index, input) in inputs.enumerated() where index < expected.count {
            #expect(hexString(BLAKE2b.hash(input)) == expected[index], "length \(input.count)")
        }
    }
}
