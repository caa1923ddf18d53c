import Foundation

enum Report {
    static let peers = ["c-reference", "libzip", "zipfoundation", "filesystem", "sqlite", "infozip", "format1"]

    /// What the figures need beside the results, gathered during the run.
    struct Figures {
        /// Plain store lookups of a variant's file, per dataset (for the variant figure).
        var plainLookups: [String: Double] = [:]
        /// Per dataset, the time to touch a random read's bytes with no lookup (the floor for
        /// any reader).
        var touchFloors: [String: Double] = [:]
        /// Index sizes per dataset, filled in as datasets are opened (for the memory figure).
        var indexSizes: [String: Int] = [:]
        /// The bytes verify checks per dataset (content and index), for its throughput.
        var contentBytes: [String: UInt64] = [:]
    }

    /// The table: each workload and dataset, ours and every peer with its ratio to ours.
    static func print(_ results: [BenchResult], figures: Figures, quick: Bool, seconds: Double) {
        var lines: [String] = []
        lines.append("packbench \(quick ? "--quick" : "(full)"): \(String(format: "%.0f", seconds)) s")
        lines.append("| dataset | workload | assetpack | " + peers.joined(separator: " | ") + " |")
        lines.append("|---|---|---|" + peers.map { _ in "---" }.joined(separator: "|") + "|")
        let keys = results.map { "\($0.dataset)|\($0.workload)" }.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        for key in keys {
            let parts = key.split(separator: "|").map(String.init)
            let row = results.filter { $0.dataset == parts[0] && $0.workload == parts[1] }
            guard let ours = row.first(where: { $0.system == "assetpack" }) else { continue }
            var cells = [parts[0], parts[1], cell(ours, ours: nil)]
            for peer in peers { cells.append(row.first { $0.system == peer }.map { cell($0, ours: ours) } ?? "") }
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        lines.append("")
        lines.append("Figures to reach:")
        lines += targets(results, figures)
        Swift.print(lines.joined(separator: "\n"))
    }

    static func cell(_ result: BenchResult, ours: BenchResult?) -> String {
        var text = format(result.median_ns)
        if let ours, ours.median_ns > 0 { text += String(format: " (%.1f×)", result.median_ns / ours.median_ns) }
        if let rss = result.rss_bytes, result.workload == "open" { text += String(format: ", %.1f MiB", Double(rss) / 1_048_576) }
        return text
    }

    static func value(_ results: [BenchResult], _ dataset: String, _ workload: String, _ system: String) -> BenchResult? {
        results.first { $0.dataset == dataset && $0.workload == workload && $0.system == system }
    }

    static func targets(_ results: [BenchResult], _ figures: Figures) -> [String] {
        var lines: [String] = []
        func check(_ label: String, _ ok: Bool?, _ detail: String) {
            guard let ok else { return }
            lines.append("- [\(ok ? "reached" : "NOT reached")] \(label): \(detail)")
        }
        if let ours = value(results, "entries100k", "open", "assetpack"), let libzip = value(results, "entries100k", "open", "libzip"),
            let c = value(results, "entries100k", "open", "c-reference")
        {
            check("open 100k ≤ 1/25 of libzip", ours.median_ns * 25 <= libzip.median_ns, String(format: "ours %@, libzip %@ (%.1f×)", format(ours.median_ns), format(libzip.median_ns), libzip.median_ns / ours.median_ns))
            check("open 100k within 2× of the C reference", ours.median_ns <= 2 * c.median_ns, String(format: "%.2f× the C reference", ours.median_ns / c.median_ns))
            if let rss = ours.rss_bytes, let indexSize = figures.indexSizes[ours.dataset] {
                check("RSS after open 100k ≤ index + 2 MiB", rss <= indexSize + 2 << 20, String(format: "%.1f MiB for a %.1f MiB index", Double(rss) / 1_048_576, Double(indexSize) / 1_048_576))
            }
        }
        for dataset in Dataset.all {
            if let ours = value(results, dataset, "random-read", "assetpack"), let c = value(results, dataset, "random-read", "c-reference") {
                check("random read within 1.5× of C, \(dataset)", ours.median_ns <= 1.5 * c.median_ns, String(format: "%.2f×", ours.median_ns / c.median_ns))
            }
            if let ours = value(results, dataset, "build", "assetpack"), let zip = value(results, dataset, "build", "infozip") {
                check("build ≤ 0.5× zip -0 -r, \(dataset)", ours.median_ns <= 0.5 * zip.median_ns, String(format: "%.2f×", ours.median_ns / zip.median_ns))
            }
            if ["tree3k", "entries10k", "entries100k"].contains(dataset), let ours = value(results, dataset, "build", "assetpack"),
                let old = value(results, dataset, "build", "format1")
            {
                check(
                    "format-2 build ≤ 1.15× format 1, \(dataset)", ours.median_ns <= 1.15 * old.median_ns,
                    String(format: "%.2f× (%@ against %@)", ours.median_ns / old.median_ns, format(ours.median_ns), format(old.median_ns)))
            }
            if dataset == "entries100k", let verify = value(results, dataset, "verify", "assetpack"), let bytes = figures.contentBytes[dataset] {
                let rate = Double(bytes) / (verify.median_ns / 1e9) / Double(1 << 30)
                check("verify entries100k ≥ 1 GiB/s of content", rate >= 1, String(format: "%.2f GiB/s (%@ for %.0f MiB)", rate, format(verify.median_ns), Double(bytes) / 1_048_576))
            }
            if let variant = value(results, dataset, "variant-lookup", "assetpack"), let plain = figures.plainLookups[dataset] {
                check(
                    "variant lookup ≤ 2× a plain lookup, \(dataset)", variant.median_ns <= 2 * plain,
                    "\(format(variant.median_ns)) against \(format(plain)) (\(String(format: "%.2f", variant.median_ns / plain))×)")
            }
            if let swap = value(results, dataset, "locale-swap", "assetpack") {
                check("locale swap ≤ 1 ms, \(dataset)", swap.median_ns <= 1e6, format(swap.median_ns))
            }
        }
        for (dataset, limit) in [("tree3k", 10e6), ("entries100k", 200e6)] {
            if let noop = value(results, dataset, "noop-rebuild", "assetpack") {
                let build = value(results, dataset, "build", "assetpack").map { " (a full build \(format($0.median_ns)))" } ?? ""
                check("no-op rebuild ≤ \(format(limit)), \(dataset)", noop.median_ns <= limit, format(noop.median_ns) + build)
            }
        }
        if let pack = value(results, "tree3k", "install", "assetpack"), let files = value(results, "tree3k", "install", "filesystem") {
            lines.append(
                String(
                    format: "- [figure] install tree3k as an installer copies (create, write, fsync each file, fsync the folders): "
                        + "the loose files %@, the one pack %@ (%.1f× faster)", format(files.median_ns), format(pack.median_ns),
                    files.median_ns / pack.median_ns))
        }
        if let ours = value(results, "tree3k", "random-read", "assetpack") {
            for peer in ["filesystem", "libzip"] {
                if let other = value(results, "tree3k", "random-read", peer) {
                    var detail = String(format: "%.1f×", other.median_ns / ours.median_ns)
                    if let floor = figures.touchFloors["tree3k"] {
                        detail += String(
                            format: " (touching the same bytes with no lookup at all takes %@ a read, so no reader can be more than %.1f× faster than %@ here)",
                            format(floor), other.median_ns / floor, peer)
                    }
                    check("random read ≥ 20× faster than \(peer), tree3k", other.median_ns >= 20 * ours.median_ns, detail)
                }
            }
        }
        return lines
    }
}
