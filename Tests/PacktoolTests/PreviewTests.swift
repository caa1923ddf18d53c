import Foundation
import TestSupport
import Testing

/// `packtool preview`: a static site a reviewer opens from the file system, checked as files and
/// in a real browser (headless Chromium).
@Suite("packtool preview: every question with its picture, in every locale, as static pages")
struct PreviewTests {
    /// A prompt in each language of the driving banks, in its own script and punctuation
    /// (Gurmukhi with its vowel signs, nukta, addak and danda; Han with full-width marks).
    static let prompts = [
        ("en", "Which <b>sign</b> & why?"), ("ru", "Какой знак и почему?"), ("zh-Hans", "在卑诗省，哪个标志表示“让行”？为什么？"),
        ("pa", "ਕਿਹੜਾ ਨਿਸ਼ਾਨ “ਰਸਤਾ ਦਿਓ” ਦੱਸਦਾ ਹੈ, ਅਤੇ ਕਿਉਂ? ਸੜਕ ਉੱਤੇ ਰੁਕੋ।"),
    ]

    /// A base pack with two pictures and a bank per language of `prompts` (English and Russian
    /// unless told) whose questions show them (two questions share one picture); `broken` makes
    /// one question name a picture no pack has.
    static func packs(in scratch: Scratch, broken: Bool = false, prompts: [(String, String)] = Array(prompts.prefix(2))) throws -> [String] {
        try writePNG(scratch.url("base-src/Images/a@2x.png"), width: 64, height: 32, color: (200, 30, 40))
        try writePNG(scratch.url("base-src/Images/b@2x.png"), width: 20, height: 20, color: (20, 90, 200))
        let built = try Packtool.run("build", scratch.url("base-src"), "-o", scratch.url("base.pack"), "--name", "base")
        try #require(built.status == 0, "\(built.stderr)")
        for (language, prompt) in prompts {
            let third = broken && language == "en" ? "Images/missing.png" : "Images/b.png"
            let questions = [("q1", "Images/a.png"), ("q2", "Images/a.png"), ("q3", third)].map { id, picture in
                #"{"id": "\#(id)", "prompt": "\#(prompt) \#(id)", "picture": "\#(picture)", "explanation": "Because \#(id).", "source": "MVA s. 1", "choices": [{"text": "right \#(id)", "correct": true}, {"text": "wrong \#(id)", "correct": false}]}"#
            }
            // Built without packtool's content checks, so that a broken reference gets through.
            try scratch.pack(
                language, locale: language,
                files: [
                    "Banks/b/bank.json": #"{"id": "b", "title": "Bank \#(language)", "language": "\#(language)", "categories": ["c"]}"#,
                    "Banks/b/c.json": #"{"id": "c", "title": "Cat \#(language)", "lessons": [{"id": "l", "title": "L", "intro": "I.", "questions": [\#(questions.joined(separator: ", "))]}]}"#,
                ])
        }
        return [scratch.url("base.pack")] + prompts.map { scratch.url($0.0 + ".pack") }
    }

    /// Writes a real PNG of one colour (Python's zlib makes the data; the browser must decode it).
    static func writePNG(_ path: String, width: Int, height: Int, color: (Int, Int, Int)) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let script = """
            import struct, sys, zlib
            path, w, h, r, g, b = sys.argv[1], *map(int, sys.argv[2:])
            def chunk(kind, data): return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data))
            rows = b''.join(b'\\x00' + bytes([r, g, b]) * w for _ in range(h))
            png = b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(rows)) + chunk(b'IEND', b'')
            open(path, 'wb').write(png)
            """
        let result = try run("python3", ["-c", script, path, String(width), String(height), String(color.0), String(color.1), String(color.2)])
        try #require(result.status == 0, "\(result.stderr)")
    }

    @Test("pages per category with every locale side by side, text escaped, pictures copied once by content")
    func site() throws {
        let scratch = try Scratch()
        let packs = try Self.packs(in: scratch)
        let output = scratch.url("site")
        let result = try Packtool.run(["preview"] + packs + ["-o", output])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.output == "\(output)/index.html: 2 pages, 2 pictures\n")
        let index = try String(contentsOfFile: output + "/index.html", encoding: .utf8)
        #expect(index.contains("Bank en") && index.contains("href=\"bank-b-c.html\""))
        #expect(index.contains("3 questions in 1 categories"))
        let page = try String(contentsOfFile: output + "/bank-b-c.html", encoding: .utf8)
        #expect(page.contains("Which &lt;b&gt;sign&lt;/b&gt; &amp; why? q1"))
        #expect(!page.contains("<b>sign</b>"))
        #expect(page.contains("lang=\"en\"") && page.contains("lang=\"ru\"") && page.contains("Какой знак и почему? q3"))
        #expect(page.contains("<li class=\"key\" dir=\"auto\"><strong>right q2</strong> ✓</li>"))
        #expect(page.contains("Source: MVA s. 1"))
        // Two pictures, each written once under its content's name, shown at half the @2x size.
        let images = try FileManager.default.contentsOfDirectory(atPath: output + "/images").sorted()
        #expect(images.count == 2)
        for image in images {
            let bytes = try fileBytes(output + "/images/" + image)
            #expect(image == ExternalSHA256.hex(bytes) + ".png")
        }
        #expect(page.contains("width=\"32\" height=\"16\" alt=\"Images/a.png\""))
        #expect(page.components(separatedBy: "<img ").count - 1 == 3)
    }

    @Test("a question whose picture no pack has is an error on its page and in the exit status")
    func brokenPicture() throws {
        let scratch = try Scratch()
        let packs = try Self.packs(in: scratch, broken: true)
        let output = scratch.url("site")
        let result = try Packtool.run(["preview"] + packs + ["-o", output])
        #expect(result.status == 1)
        #expect(result.stderr == "packtool: Banks/b/c.json: q3: missing picture: Images/missing.png (1 problem(s) in all, shown in the preview)\n")
        let page = try String(contentsOfFile: output + "/bank-b-c.html", encoding: .utf8)
        #expect(page.contains("<p class=\"error\">missing picture: Images/missing.png</p>"))
        let index = try String(contentsOfFile: output + "/index.html", encoding: .utf8)
        #expect(index.contains("1 problem(s)"))
    }

    @Test("a file where the output folder should be is refused")
    func outputIsAFile() throws {
        let scratch = try Scratch()
        let packs = try Self.packs(in: scratch)
        try scratch.write("site", "not a folder")
        let result = try Packtool.run(["preview"] + packs + ["-o", scratch.url("site")])
        #expect(result.status == 1)
        #expect(result.stderr == "packtool: \(scratch.url("site")): not a folder: the preview is written into a folder\n")
    }
}


/// The preview in a real browser: Debian's headless Chromium (installed by Scripts/setup).
@Suite("packtool preview in a browser", .tags(.browser), .fullTierOnly, .serialized)
struct PreviewBrowserTests {
    /// Runs headless Chromium on `page` with `arguments`; its own noise on stderr is ignored.
    static func chromium(_ arguments: [String], page: String) throws -> ProcessResult {
        let profile = try Scratch()
        return try run(
            "chromium",
            ["--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + profile.path, "--virtual-time-budget=5000"]
                + arguments + ["file://" + page])
    }

    @Test("every picture loads (naturalWidth > 0) and the page is not blank")
    func loads() throws {
        let scratch = try Scratch()
        let packs = try PreviewTests.packs(in: scratch)
        let output = scratch.url("site")
        #expect(try Packtool.run(["preview"] + packs + ["-o", output]).status == 0)
        let dom = try Self.chromium(["--dump-dom"], page: output + "/bank-b-c.html")
        #expect(dom.status == 0, "\(dom.stderr)")
        let images = dom.output.components(separatedBy: "<img ").dropFirst()
        #expect(images.count == 3)
        #expect(images.allSatisfy { $0.contains("data-loaded=\"yes\"") }, "\(dom.output)")
        // A screenshot with more than a handful of colours: text and pictures were drawn.
        let shot = scratch.url("shot.png")
        let taken = try Self.chromium(["--screenshot=" + shot, "--window-size=900,700", "--hide-scrollbars"], page: output + "/bank-b-c.html")
        #expect(taken.status == 0, "\(taken.stderr)")
        let script = """
            import sys, zlib
            data = open(sys.argv[1], 'rb').read()
            chunks, at = [], 8
            while at < len(data):
                length = int.from_bytes(data[at:at + 4], 'big'); kind = data[at + 4:at + 8]
                if kind == b'IDAT': chunks.append(data[at + 8:at + 8 + length])
                at += 12 + length
            print(len(set(zlib.decompress(b''.join(chunks)))))
            """
        let colours = try run("python3", ["-c", script, shot])
        #expect(colours.status == 0, "\(colours.stderr)")
        #expect((Int(colours.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) > 20, "distinct bytes: \(colours.output)")
    }

    /// The columns of `dom` (a page as Chromium dumps it) by language, each with its
    /// `data-glyphs` and `data-missing`, and the page's own.
    static func glyphs(_ dom: String) -> [(scope: String, glyphs: String?, missing: String?)] {
        // NSRegularExpression, not Regex: the tests keep to the platforms Package.swift declares.
        guard let tag = try? NSRegularExpression(pattern: #"<(html|div class="column") lang="([^"]+)"([^>]*)>"#) else { return [] }
        return tag.matches(in: dom, range: NSRange(dom.startIndex..., in: dom)).compactMap { match in
            guard let kind = Range(match.range(at: 1), in: dom), let language = Range(match.range(at: 2), in: dom),
                let rest = Range(match.range(at: 3), in: dom)
            else { return nil }
            let attributes = String(dom[rest])
            func value(_ name: String) -> String? {
                guard let start = attributes.range(of: " \(name)=\"") else { return nil }
                return String(attributes[start.upperBound...].prefix { $0 != "\"" })
            }
            return (dom[kind] == "html" ? "page" : String(dom[language]), value("data-glyphs"), value("data-missing"))
        }
    }

    @Test("every language's text is drawn with real glyphs, not a missing font's empty boxes: Gurmukhi and Chinese need Noto (Scripts/setup)")
    func everyLanguageHasGlyphs() throws {
        let scratch = try Scratch()
        let packs = try PreviewTests.packs(in: scratch, prompts: PreviewTests.prompts)
        let output = scratch.url("site")
        #expect(try Packtool.run(["preview"] + packs + ["-o", output]).status == 0)
        let dom = try Self.chromium(["--dump-dom"], page: output + "/bank-b-c.html")
        #expect(dom.status == 0, "\(dom.stderr)")
        let scopes = Self.glyphs(dom.output)
        // The page itself, then a column per language for each of the three questions.
        #expect(scopes.map(\.scope) == ["page"] + Array(repeating: PreviewTests.prompts.map(\.0), count: 3).flatMap { $0 }, "\(dom.output)")
        for scope in scopes {
            #expect(scope.glyphs == "ok", "\(scope.scope): no font for \(scope.missing ?? "?")")
        }
    }

    @Test("a character no font has is marked on the page with its code point (the check can fail)")
    func missingGlyphIsMarked() throws {
        let scratch = try Scratch()
        // U+10FFFD: a private-use character of plane 16, which no font on the machine maps.
        let fonts = try run("fc-list", [":charset=10fffd"])
        try #require(fonts.status == 0 && fonts.output.isEmpty, "a font maps U+10FFFD: \(fonts.output)")
        let packs = try PreviewTests.packs(in: scratch, prompts: [("en", "Which sign? \u{10FFFD}"), ("ru", "Какой знак?")])
        let output = scratch.url("site")
        #expect(try Packtool.run(["preview"] + packs + ["-o", output]).status == 0)
        let dom = try Self.chromium(["--dump-dom"], page: output + "/bank-b-c.html")
        let scopes = Self.glyphs(dom.output)
        #expect(scopes.filter { $0.scope == "en" }.map(\.missing) == Array(repeating: "U+10FFFD \u{10FFFD}", count: 3), "\(dom.output)")
        #expect(scopes.filter { $0.scope != "en" }.allSatisfy { $0.glyphs == "ok" }, "\(scopes)")
        #expect(dom.output.contains("<p class=\"error\">No font for 1 character(s) of this text: U+10FFFD \u{10FFFD}</p>"))
    }

    @Test("a broken picture reference is shown as an error on the page the browser renders")
    func brokenShown() throws {
        let scratch = try Scratch()
        let packs = try PreviewTests.packs(in: scratch, broken: true)
        let output = scratch.url("site")
        #expect(try Packtool.run(["preview"] + packs + ["-o", output]).status == 1)
        let dom = try Self.chromium(["--dump-dom"], page: output + "/bank-b-c.html")
        #expect(dom.output.contains("<p class=\"error\">missing picture: Images/missing.png</p>"))
        let images = dom.output.components(separatedBy: "<img ").dropFirst()
        #expect(images.count == 2 && images.allSatisfy { $0.contains("data-loaded=\"yes\"") })
    }
}
