import ArgumentParser
import AssetLibrary
import AssetPack
import Foundation
import StudyContent

extension PackTool {
    struct Preview: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a static HTML preview of the banks and decks in the packs, for reviewers.",
            discussion: """
                Mounts the packs as one store and writes OUTPUT/index.html (every bank and deck, \
                with the bank's statistics), a page per bank category (every question with its \
                picture at @2x, the choices with the key marked, the explanation and the source, \
                side by side in every locale) and a page per deck (each card with its picture). \
                Pictures are copied out of the packs once each, named by their SHA-256. The pages \
                need no server and no script library: open index.html from the file system. \
                A picture the browser cannot load is outlined in red, and so is text the browser \
                has no font for (it would show as empty boxes), with the characters named.
                A picture that is in no mounted pack is shown as an error on its page, and the \
                command then exits with status 1 after writing the whole preview.
                """)

        @Argument(help: "The packs: base packs and the locale packs to show.")
        var packs: [String]

        @Option(name: .shortAndLong, help: "The folder to write the preview into (created if needed).")
        var output: String

        @Option(
            name: .customLong("locale"),
            help: "A locale to show, as a column (repeatable; default: every locale of the packs).")
        var locales: [String] = []

        func validate() throws {
            guard !packs.isEmpty else { throw ValidationError("give at least one pack") }
            for tag in locales {
                do { _ = try LocaleTag.parse(tag) } catch { throw ValidationError("--locale: \(error.reason)") }
            }
        }

        func run() throws {
            try reportingErrors {
                let site = try PreviewSite(packs: packs, locales: locales, output: output)
                try site.write()
                try Output.line("\(output)/index.html: \(site.pageCount) pages, \(site.pictureCount) pictures")
                if let problem = site.problems.first {
                    throw ContentError(
                        problem.code, problem.detail + " (\(site.problems.count) problem(s) in all, shown in the preview)", at: problem.location)
                }
            }
        }
    }
}

/// The preview: the store, what it holds per locale, and the pages written.
private final class PreviewSite {
    let output: String
    let store = AssetStore()
    /// The locales shown, as columns; `nil` stands for the base packs alone.
    let columns: [LocaleTag?]
    private(set) var pageCount = 0
    private(set) var problems: [ContentError] = []
    /// A picture copied out: its file in the preview and its `width`/`height` attributes.
    private struct CopiedPicture {
        var file: String
        var size: String
    }

    /// Pictures copied out: the picture path asked for → its copy, or `nil` if it is missing.
    private var pictures: [String: CopiedPicture?] = [:]
    private var written = Set<String>()

    var pictureCount: Int { written.count }

    init(packs: [String], locales: [String], output: String) throws {
        self.output = output
        var found: [LocaleTag] = []
        for path in packs {
            let pack = try store.mount(path: path)
            if let tag = pack.metadata?.locale.flatMap({ try? LocaleTag.parse($0) }), !found.contains(tag) { found.append(tag) }
        }
        let asked = locales.compactMap { try? LocaleTag.parse($0) }  // checked in validate()
        columns = asked.isEmpty ? (found.isEmpty ? [nil] : found) : asked
    }

    /// The store's view for a column.
    func view(_ column: LocaleTag?) throws -> AssetView {
        if let column { try store.setLocale(column.description) }
        return store.currentView
    }

    func write() throws {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: output, isDirectory: &isFolder), !isFolder.boolValue {
            throw PackError(.notAFolder, "the preview is written into a folder", at: .file(output))
        }
        try FileManager.default.createDirectory(atPath: output + "/images", withIntermediateDirectories: true)
        let primary = try view(columns[0])
        let bankIDs = primary.subdirectories(inDirectory: "Banks").map { String($0.dropFirst("Banks/".count)) }
            .filter { primary.contains(QuestionBank.indexPath(of: $0)) }
        let deckPaths = primary.files(inDirectory: "Decks").filter { path in Deck.extensions.contains { path.hasSuffix("." + $0) } }

        var index = ["<h1>Preview</h1>", "<p>Packs: " + store.currentView.packs.map { escape($0.metadata?.name ?? $0.path) }.joined(separator: ", ")
            + ". Locales: " + columns.map { escape($0?.description ?? "base") }.joined(separator: ", ") + ".</p>"]
        for id in bankIDs {
            var banks: [(LocaleTag?, QuestionBank)] = []
            for column in columns { banks.append((column, try QuestionBank.load(id: id, from: try view(column)))) }
            let (_, bank) = banks[0]
            let figures = BankStatistics(bank, pictures: try view(columns[0]))
            index.append("<h2 dir=\"auto\">Bank: \(escape(bank.title)) <code>\(escape(bank.id))</code></h2>")
            index.append(statistics(figures))
            index.append("<ol>")
            for category in bank.categories {
                let page = "bank-\(fileName(bank.id))-\(fileName(category.id)).html"
                index.append("<li><a href=\"\(page)\" dir=\"auto\">\(escape(category.title))</a> (\(category.questions.count))</li>")
                try writeCategory(category.id, of: banks, to: page)
            }
            index.append("</ol>")
        }
        for path in deckPaths {
            let deck = try Deck.load(path: path, from: primary)
            let page = "deck-\(fileName(deck.id)).html"
            index.append("<h2 dir=\"auto\">Deck: <a href=\"\(page)\">\(escape(deck.title))</a> <code>\(escape(deck.id))</code></h2>")
            index.append("<p>\(deck.cards.count) cards.</p>")
            try writeDeck(deck, file: path, view: primary, to: page)
        }
        if !problems.isEmpty {
            index.insert("<p class=\"error\">\(problems.count) problem(s): see the pages marked in red.</p>", at: 1)
        }
        try writePage("index.html", title: "Preview", body: index)
    }

    private func writeCategory(_ id: String, of banks: [(LocaleTag?, QuestionBank)], to page: String) throws {
        let categories = banks.map { column, bank in (column, bank.categories.first { $0.id == id }) }
        guard let category = categories[0].1 else { return }
        var body = ["<p><a href=\"index.html\">Index</a></p>", "<h1 dir=\"auto\">\(escape(category.title))</h1>"]
        if let picture = category.picture { body.append(try image(picture, file: "Banks/\(banks[0].1.id)/\(id).json", item: id)) }
        for question in category.questions {
            body.append("<section id=\"\(escape(question.id))\"><h2><code>\(escape(question.id))</code></h2>")
            if let picture = question.picture {
                body.append(try image(picture, file: "Banks/\(banks[0].1.id)/\(id).json", item: question.id))
            }
            body.append("<div class=\"columns\">")
            for (column, translated) in categories {
                let match = translated?.questions.first { $0.id == question.id }
                let lang = escape(column?.description ?? "und")
                body.append("<div class=\"column\" lang=\"\(lang)\"><h3>\(lang)</h3>")
                guard let match else {
                    body.append("<p class=\"error\">not translated</p></div>")
                    continue
                }
                body.append("<p class=\"prompt\" dir=\"auto\">\(escape(match.prompt))</p><ol>")
                for choice in match.choices {
                    body.append(choice.correct
                        ? "<li class=\"key\" dir=\"auto\"><strong>\(escape(choice.text))</strong> ✓</li>"
                        : "<li dir=\"auto\">\(escape(choice.text))</li>")
                }
                body.append("</ol><p class=\"explanation\" dir=\"auto\">\(escape(match.explanation))</p>")
                if let source = match.source { body.append("<p class=\"source\" dir=\"auto\">Source: \(escape(source))</p>") }
                body.append("</div>")
            }
            body.append("</div></section>")
        }
        try writePage(page, title: category.title, body: body)
    }

    private func writeDeck(_ deck: Deck, file: String, view: AssetView, to page: String) throws {
        var body = ["<p><a href=\"index.html\">Index</a></p>", "<h1 dir=\"auto\">\(escape(deck.title))</h1>"]
        for card in deck.cards {
            body.append("<section id=\"\(escape(card.id))\" class=\"card\"><h2><code>\(escape(card.id))</code></h2>")
            if let picture = card.picture { body.append(try image(picture, file: file, item: card.id)) }
            body.append("<p class=\"front\" dir=\"auto\">\(escape(card.front))</p><p class=\"back\" dir=\"auto\">\(escape(card.back))</p></section>")
        }
        try writePage(page, title: deck.title, body: body)
    }

    /// An `<img>` of `picture` at @2x (copied out once, named by content), or an error on the
    /// page when no mounted pack has it.
    private func image(_ picture: String, file: String, item: String) throws -> String {
        if pictures[picture] == nil {
            if let hit = store.image(named: picture, scale: 2, idiom: .phone) {
                let bytes = try hit.hit.data()
                let suffix = hit.path.split(separator: ".").last.map { "." + $0.lowercased() } ?? ""
                let name = "images/" + bytes.withUnsafeBytes { EntryHash.of($0).hex } + suffix
                if written.insert(name).inserted {
                    try Data(bytes).write(to: URL(fileURLWithPath: output + "/" + name), options: .atomic)
                }
                pictures[picture] = .some(CopiedPicture(file: name, size: Self.displaySize(of: bytes)))
            } else {
                pictures[picture] = .some(nil)
            }
        }
        guard let copy = pictures[picture] ?? nil else {
            problems.append(ContentError(.missingPicture, picture, at: .file(file, item: item)))
            return "<p class=\"error\">missing picture: \(escape(picture))</p>"
        }
        return "<img src=\"\(copy.file)\"\(copy.size) alt=\"\(escape(picture))\" title=\"\(escape(picture))\">"
    }

    /// ` width="W" height="H"` at half a PNG's pixel size (an @2x picture shown at its point
    /// size), from its IHDR chunk; empty for anything else.
    static func displaySize(of bytes: PackData) -> String {
        guard bytes.count >= 24, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) else { return "" }
        func word(_ offset: Int) -> Int {
            bytes[bytes.startIndex + offset..<bytes.startIndex + offset + 4].reduce(0) { $0 << 8 | Int($1) }
        }
        let width = word(16)
        let height = word(20)
        guard width > 0, height > 0, width < 100_000, height < 100_000 else { return "" }
        return " width=\"\((width + 1) / 2)\" height=\"\((height + 1) / 2)\""
    }

    private func statistics(_ figures: BankStatistics) -> String {
        func percent(_ share: Double) -> String { String(Int((share * 100).rounded())) + "%" }
        let positions = figures.correctPositions.keys.sorted().map { "\($0 + 1): \(percent(figures.shareCorrect(at: $0)))" }
        return "<ul class=\"stats\"><li>\(figures.questions) questions in \(figures.categories.count) categories</li>"
            + "<li>correct position: \(positions.joined(separator: ", "))</li>"
            + "<li>correct choice the longest: \(figures.correctIsLongest) (\(percent(figures.shareCorrectIsLongest)))</li>"
            + "<li>yes/no questions: \(figures.yesNoQuestions.count); correct choice alone starts differently: \(figures.oddOpenerQuestions.count)</li>"
            + "<li>without source: \(figures.withoutSource.count); pictures: \(figures.pictures.count) used, \(figures.missingPictures.count) missing</li></ul>"
    }

    private func writePage(_ name: String, title: String, body: [String]) throws {
        let html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>\(escape(title))</title>
            <style>
            body { font: 15px/1.4 system-ui, sans-serif; margin: 1.5em; }
            .columns { display: flex; flex-wrap: wrap; gap: 1em; }
            .column { flex: 1 1 18em; border: 1px solid #ccc; padding: 0 .8em; }
            .key { background: #dfd; } .error { color: #b00; font-weight: bold; }
            img { max-width: 100%; border: 1px solid #eee; } img[data-loaded="no"] { outline: 3px solid #b00; }
            .column[data-glyphs="missing"] { outline: 3px dashed #b00; }
            section { border-bottom: 1px solid #ddd; padding-bottom: 1em; }
            </style></head><body>
            \(body.joined(separator: "\n"))
            <script>\(Self.pageScript)</script>
            </body></html>

            """
        try Data(html.utf8).write(to: URL(fileURLWithPath: output + "/" + name), options: .atomic)
        pageCount += 1
    }
}

extension PreviewSite {
    /// What every page does once loaded, marking what a reviewer would not see:
    /// - each picture: `data-loaded="yes"`, or `"no"` when the browser could not decode it;
    /// - each element with a `lang` (a locale's column, and the page itself for the text outside
    ///   the columns): `data-glyphs="ok"`, or `"missing"` with `data-missing` naming the
    ///   characters no font of the browser's machine has, and the list shown on the page. A
    ///   character is missing when, drawn on a canvas in its element's font, it has the very
    ///   pixels of U+0378 (unassigned, in no font): the empty box of a font's `.notdef` glyph.
    static let pageScript = #"""
        addEventListener("load", () => {
          for (const image of document.images) { image.dataset.loaded = image.complete && image.naturalWidth > 0 ? "yes" : "no" }
          const canvas = document.createElement("canvas");
          canvas.width = canvas.height = 48;
          const context = canvas.getContext("2d", { willReadFrequently: true });
          const draw = (text, font) => { context.font = font; context.clearRect(0, 0, 48, 48); context.fillText(text, 4, 36); return context.getImageData(0, 0, 48, 48).data };
          const same = (a, b) => { for (let i = 3; i < a.length; i += 4) { if (a[i] !== b[i]) return false } return true };
          const scopes = new Map();
          const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
          for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            const parent = node.parentElement;
            if (!parent || parent.closest("script, style")) continue;
            const scope = parent.closest("[lang]") || document.documentElement;
            const font = "32px " + getComputedStyle(parent).fontFamily;
            if (!scopes.has(scope)) scopes.set(scope, new Map());
            for (const character of node.data) { if (!/[\p{White_Space}\p{Cc}\p{Cf}]/u.test(character)) scopes.get(scope).set(character, font) }
          }
          const boxes = new Map();
          for (const [scope, characters] of scopes) {
            const missing = [];
            for (const [character, font] of characters) {
              if (!boxes.has(font)) boxes.set(font, draw("͸", font));
              if (same(draw(character, font), boxes.get(font))) missing.push("U+" + character.codePointAt(0).toString(16).toUpperCase().padStart(4, "0") + " " + character);
            }
            scope.dataset.glyphs = missing.length ? "missing" : "ok";
            if (!missing.length) continue;
            scope.dataset.missing = missing.join(", ");
            const warning = document.createElement("p");
            warning.className = "error";
            warning.textContent = "No font for " + missing.length + " character(s) of this text: " + missing.join(", ");
            (scope === document.documentElement ? document.body : scope).prepend(warning);
          }
        })
        """#
}

/// `text` with the characters HTML gives a meaning escaped.
private func escape(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for character in text {
        switch character {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        case "'": out += "&#39;"
        default: out.append(character)
        }
    }
    return out
}

/// An id as a file name: letters, digits, `-` and `_` kept, anything else as `_`.
private func fileName(_ id: String) -> String {
    String(id.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") ? $0 : "_" })
}
