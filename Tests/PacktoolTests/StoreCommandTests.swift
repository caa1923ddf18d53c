import Foundation
import TestSupport
import Testing

@Suite("packtool build validation, resolve and show")
struct StoreCommandTests {
    static func bank(prompt: String = "Why?", correct: (Bool, Bool) = (true, false), picture: String = "Images/p.png") -> [String: String] {
        [
            "Banks/b/bank.json": #"{"id": "b", "title": "Bank", "language": "en", "categories": ["c"]}"#,
            "Banks/b/c.json": #"""
                {"id": "c", "title": "Category", "picture": "\#(picture)", "lessons": [{"id": "l", "title": "L", "intro": "I",
                 "questions": [{"id": "q1", "prompt": "\#(prompt)", "choices": [{"text": "yes", "correct": \#(correct.0)},
                 {"text": "no", "correct": \#(correct.1)}], "explanation": "Because."}]}]}
                """#,
        ]
    }

    @Test("build fails on invalid content, one line per problem naming file, item and reason, and writes nothing")
    func invalidContent() throws {
        let scratch = try Scratch()
        for (name, text) in Self.bank(prompt: "", correct: (true, true), picture: "Images/none.png") { try scratch.write("src/" + name, text) }
        let result = try Packtool.run("build", scratch.url("src"), "-o", scratch.url("x.pack"))
        #expect(result.status == 1)
        let src = scratch.url("src")
        #expect(
            result.stderr == """
                packtool: \(src)/Banks/b/c.json:1: c: missing picture: Images/none.png
                packtool: \(src)/Banks/b/c.json:2: q1: empty text: prompt
                packtool: \(src)/Banks/b/c.json:2: q1: needs exactly one correct answer: 2 are marked correct

                """)
        #expect(!FileManager.default.fileExists(atPath: scratch.url("x.pack")))
    }

    @Test("build takes pictures from --base and checks a translation against --reference (also from .pack.json)")
    func baseAndReference() throws {
        let scratch = try Scratch()
        try scratch.write("base/Images/p.png", "1x")
        try scratch.write("base/Images/p@3x.png", "3x")
        for (name, text) in Self.bank() { try scratch.write("en/" + name, text) }
        for (name, text) in Self.bank(prompt: "Почему?") { try scratch.write("ru/" + name, text.replacingOccurrences(of: "q1", with: "q9")) }
        #expect(try Packtool.run("build", scratch.url("en"), "-o", scratch.url("en.pack")).status == 1)
        #expect(try Packtool.run("build", scratch.url("en"), "-o", scratch.url("en.pack"), "--base", scratch.url("base"), "--locale", "en").status == 0)
        try scratch.write("ru/.pack.json", #"{"locale": "ru", "base": "../base", "reference": "../en.pack"}"#)
        let ru = try Packtool.run("build", scratch.url("ru"), "-o", scratch.url("ru.pack"))
        #expect(ru.status == 1)
        #expect(
            ru.stderr == """
                packtool: \(scratch.url("ru"))/Banks/b/c.json: q1: missing translation
                packtool: \(scratch.url("ru"))/Banks/b/c.json:2: q9: translation of an item the reference does not have

                """)
    }

    @Test("resolve names the pack, entry, scale and idiom that answer; show decodes a bank and swaps locale")
    func resolveAndShow() throws {
        let scratch = try Scratch()
        try scratch.write("base/Images/p.png", "1x")
        try scratch.write("base/Images/p@2x.png", "2x")
        try scratch.write("base/Images/p@3x~ipad.png", "3x pad")
        for (name, text) in Self.bank() { try scratch.write("en/" + name, text) }
        for (name, text) in Self.bank(prompt: "Почему?") { try scratch.write("ru/" + name, text) }
        #expect(try Packtool.run("build", scratch.url("base"), "-o", scratch.url("base.pack")).status == 0)
        #expect(try Packtool.run("build", scratch.url("en"), "-o", scratch.url("en.pack"), "--locale", "en", "--base", scratch.url("base")).status == 0)
        #expect(try Packtool.run("build", scratch.url("ru"), "-o", scratch.url("ru.pack"), "--locale", "ru", "--base", scratch.url("base")).status == 0)
        let packs = [scratch.url("base.pack"), scratch.url("en.pack"), scratch.url("ru.pack")]

        let resolved = try Packtool.run(["resolve"] + packs + ["--locale", "ru-RU", "--scale", "3", "--idiom", "pad", "Images/p.png"])
        #expect(resolved.status == 0, "\(resolved.stderr)")
        #expect(
            resolved.output == """
                locale chain:    ru-RU → ru → en → base packs
                answer:          Images/p@3x~ipad.png
                from:            \(packs[0]) (base, base pack, priority 0)
                scale:           3, idiom pad
                size:            6 bytes

                """)
        let bankFile = try Packtool.run(["resolve"] + packs + ["--locale", "ru", "Banks/b/c.json"])
        #expect(bankFile.output.contains("from:            \(packs[2]) (ru, locale ru, priority 100)"))
        let missing = try Packtool.run(["resolve"] + packs + ["--locale", "ru", "Images/none.png"])
        #expect(missing.status == 1)
        #expect(missing.stderr == "packtool: Images/none.png: no such asset: no pack in the chain has it or a variant of it\n")
        let badLocale = try Packtool.run(["resolve"] + packs + ["--locale", "r!", "Images/p.png"])
        // A malformed option is a usage error (exit 64), before any pack is opened.
        #expect(badLocale.status == 64)
        #expect(badLocale.stderr.hasPrefix("Error: The value 'r!' is invalid for '--locale <locale>': subtags are 1 to 8 ASCII letters or digits\n"))

        let shown = try Packtool.run(["show"] + packs + ["--locale", "ru", "--then-locale", "en", "bank", "b", "--item", "q1"])
        #expect(shown.status == 0, "\(shown.stderr)")
        let lines = shown.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.contains("bank:            b \"Bank\" (en), from \(packs[2])"))
        #expect(lines.contains("  Почему?"))
        #expect(lines.contains("== swapped the locale to en"))
        #expect(lines.contains("  Why?"))
        #expect(lines.contains("  [x] 1. yes"))
        #expect(lines.contains("picture:         Images/p@2x.png (scale 2, from \(packs[0]))"))
    }
}

@Suite("packtool for scripts: --json, defaults, usage errors before any work")
struct ScriptingTests {
    /// A base pack with a picture and an English and a Russian pack of one bank.
    static func packs(_ scratch: Scratch) throws -> [String] {
        try scratch.write("base/Images/p.png", "p1")
        try scratch.write("base/Images/p@2x.png", "p2")
        for (name, prompt) in [("en", "Why?"), ("ru", "Почему?")] {
            for (file, text) in StoreCommandTests.bank(prompt: prompt) { try scratch.write("\(name)/" + file, text) }
        }
        #expect(try Packtool.run("build", scratch.url("base"), "-o", scratch.url("base.pack")).status == 0)
        for name in ["en", "ru"] {
            let built = try Packtool.run(
                "build", scratch.url(name), "-o", scratch.url("\(name).pack"), "--locale", name, "--base", scratch.url("base"))
            #expect(built.status == 0, "\(built.stderr)")
        }
        return ["base", "en", "ru"].map { scratch.url("\($0).pack") }
    }

    func object(_ result: ProcessResult) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any], "\(result.output)")
    }

    @Test("info, verify, resolve and show print one JSON object each")
    func json() throws {
        let scratch = try Scratch()
        let packs = try Self.packs(scratch)
        let info = try object(try Packtool.run("info", packs[2], "--json"))
        #expect(info["format"] as? String == "pack/2")
        #expect(info["name"] as? String == "ru")
        #expect(info["locale"] as? String == "ru")
        #expect(info["entries"] as? Int == 2)
        let verify = try object(try Packtool.run("verify", packs[0], "--json"))
        #expect(verify["ok"] as? Bool == true)
        #expect(verify["entries"] as? Int == 3)
        let resolved = try object(try Packtool.run(["resolve"] + packs + ["--locale", "ru", "--scale", "2", "--json", "Images/p.png"]))
        #expect(resolved["answer"] as? String == "Images/p@2x.png")
        #expect(resolved["chain"] as? [String] == ["ru", "en"])
        #expect(resolved["priority"] as? Int == 0)
        let shown = try Packtool.run(["show"] + packs + ["--locale", "ru", "--json", "--stats", "bank", "b"])
        let bank = try object(shown)
        #expect(bank["title"] as? String == "Bank")
        let stats = try #require(bank["stats"] as? [String: Any])
        #expect(stats["questions"] as? Int == 1)
        #expect(stats["correctPositions"] as? [String: Int] == ["1": 1])
        #expect(stats["withoutSource"] as? [String] == ["q1"])
        let item = try #require(bank["item"] as? [String: Any])
        #expect(item["prompt"] as? String == "Почему?")
        // A failed verify: the object says why, the line on stderr too, exit 1.
        try Data([0x50, 0x4B, 0x05, 0x06]).write(to: URL(fileURLWithPath: scratch.url("bad.pack")))
        let bad = try Packtool.run("verify", scratch.url("bad.pack"), "--json")
        #expect(bad.status == 1)
        #expect((try object(bad)["error"] as? [String: Any])?["code"] as? String == "notAZip")
    }

    @Test("show --stats on the driving bank of Packs/: the printed figures and the JSON agree")
    func statsOfTheRealBank() throws {
        let scratch = try Scratch()
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        var packs: [String] = []
        for name in ["driving-base", "driving-pa"] {
            let built = try Packtool.run("build", root + "/Packs/" + name, "-o", scratch.url(name + ".pack"))
            #expect(built.status == 0, "\(built.stderr)")
            packs.append(scratch.url(name + ".pack"))
        }
        // Punjabi falls back to nothing: the translation is whole.
        let text = try Packtool.run(["show"] + packs + ["--locale", "pa", "--stats", "bank", "driving-rules"])
        let json = try Packtool.run(["show"] + packs + ["--locale", "pa", "--stats", "--json", "bank", "driving-rules"])
        #expect(text.status == 0 && json.status == 0, "\(text.stderr)\(json.stderr)")
        let stats = try #require(try object(json)["stats"] as? [String: Any])
        let questions = try #require(stats["questions"] as? Int)
        #expect(questions == 662)
        #expect(stats["choiceCounts"] as? [String: Int] == ["4": 662])
        #expect(stats["withoutSource"] as? [String] == [])
        #expect(stats["missingPictures"] as? [String] == [])
        let positions = try #require(stats["correctPositions"] as? [String: Int])
        #expect(positions.keys.sorted() == ["1", "2", "3", "4"])
        let printed = (1...4).map { "\($0): \(Int((Double(positions["\($0)"] ?? 0) / Double(questions) * 100).rounded()))%" }
        let lines = text.output.split(separator: "\n").map(String.init)
        #expect(lines.contains("  correct position:  " + printed.joined(separator: ", ")), "\(text.output)")
        #expect(lines.contains("  without source:    0"))
        let pictures = try #require(stats["pictures"] as? [String])
        #expect(lines.contains("  pictures:          \(pictures.count) used, 0 missing"))
        let longest = try #require(stats["correctIsLongest"] as? Int)
        #expect(lines.contains { $0.hasPrefix("  correct longest:   \(longest) (") })
    }

    @Test("resolve and show work without --locale: the development locale")
    func defaultLocale() throws {
        let scratch = try Scratch()
        let packs = try Self.packs(scratch)
        let resolved = try Packtool.run(["resolve"] + packs + ["Banks/b/c.json"])
        #expect(resolved.status == 0, "\(resolved.stderr)")
        #expect(resolved.output.hasPrefix("locale chain:    en → base packs\nanswer:          Banks/b/c.json\nfrom:            \(packs[1]) (en, locale en, priority 100)\n"))
        let shown = try Packtool.run(["show"] + packs + ["bank", "b"])
        #expect(shown.output.contains("  Why?\n"))
    }

    @Test("usage errors come before any work, exit 64; a pack given twice or a folder is one line, exit 1")
    func usage() throws {
        let scratch = try Scratch()
        let packs = try Self.packs(scratch)
        for arguments in [
            ["resolve", packs[0], "--scale", "4", "Images/p.png"], ["resolve", packs[0], "--idiom", "watch", "Images/p.png"],
            ["show", packs[0], "album", "b"], ["show", packs[0], "--stats", "deck", "d"], ["resolve", "Images/p.png"],
            ["show", "/nonexistent.pack", "--locale", "!!", "bank", "b"],
        ] {
            let result = try Packtool.run(arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.hasPrefix("Error: "), "\(arguments)")
        }
        let twice = try Packtool.run(["resolve", packs[0], packs[1], packs[0], "Images/p.png"])
        #expect(twice.status == 1)
        #expect(twice.stderr == "packtool: \(packs[0]): invalid argument: the same pack is also given as \(packs[0])\n")
        let folder = try Packtool.run(["show", scratch.url("base"), "bank", "b"])
        #expect(folder.status == 1)
        #expect(folder.stderr == "packtool: \(scratch.url("base")): not a regular file: it is a folder\n")
    }
}
