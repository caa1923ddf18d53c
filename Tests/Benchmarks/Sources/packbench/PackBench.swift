// packbench: our reader against libzip, ZIPFoundation, the file system, SQLite and a plain C
// reader, side by side in one run, on datasets it generates with fixed seeds.
import ArgumentParser
import AssetLibrary
import AssetPack
import CBenchZip
import CReferenceReader
import Foundation

/// One measurement, as the JSON report records it.
struct BenchResult: Codable {
    var dataset: String
    var workload: String
    var system: String
    var median_ns: Double
    var p10_ns: Double
    var p90_ns: Double
    var rss_bytes: Int?
}

@main
struct PackBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "packbench",
        abstract: "Our reader against libzip, ZIPFoundation, the file system, SQLite and a plain C reader, in one run.",
        subcommands: [
            Run.self, ProfileOpen.self, ProfileBuild.self, ProfileRebuild.self, ProfileVariants.self, ProfileReads.self,
            RSSProbe.self,
        ],
        defaultSubcommand: Run.self)
}

extension PackBench {
    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Measure every workload on every dataset and print the table (the default).")

        @Flag(help: "Fewer lookups and rounds: about a third of the time, noisier figures.")
        var quick = false

        @Option(help: "Also write every result, with p10 and p90, to this JSON file.")
        var json: String?

        @Option(help: "Where the datasets are generated (once) and kept.")
        var data = ".build-bench"

        @Option(
            help: "The datasets to run, comma-separated: \(Dataset.all.joined(separator: ",")).",
            transform: { $0.split(separator: ",").map(String.init) })
        var datasets: [String] = Dataset.all

        func validate() throws {
            for name in datasets where !Dataset.all.contains(name) {
                throw ValidationError("unknown dataset \(name); the datasets are \(Dataset.all.joined(separator: ", "))")
            }
        }

        func run() throws {
            let repository = FileManager.default.currentDirectoryPath
            var bench = BenchRun(
                quick: quick, data: data.hasPrefix("/") ? data : repository + "/" + data, datasets: datasets,
                repository: repository, selfPath: URL(fileURLWithPath: CommandLine.arguments[0]).path)
            try bench.run()
            Report.print(bench.results, figures: bench.figures, quick: quick, seconds: Double(now() - bench.start) / 1e9)
            fflush(nil)  // the table before the note on stderr, also when both go to one file
            if let json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                try encoder.encode(["results": bench.results]).write(to: URL(fileURLWithPath: json))
                log("wrote \(json)")
            }
        }
    }

    struct ProfileOpen: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Open PACK COUNT times (for a profiler); print the median.")
        @Argument(help: "The pack.") var pack: String
        @Argument(help: "How many opens.") var count = 20

        func run() throws {
        let path = pack
        let stats = try timeRuns(count) { _ = try Pack(path: path) }
        print(format(stats.median))
        }
    }

    struct ProfileBuild: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Build PACK from FOLDER COUNT times (for a profiler); print the median.")
        @Argument(help: "The source folder.") var folder: String
        @Argument(help: "The pack to write.") var pack: String
        @Argument(help: "How many builds.") var count = 5
        @Option(name: .customLong("format"), help: "The pack format to write.") var packFormat = PackBuilder.Options().format

        func run() throws {
        let stats = try timeRuns(count) {
            var builder = PackBuilder(options: .init(format: packFormat))
            try builder.addDirectory(atPath: folder)
            try builder.write(to: pack)
        }
        print(format(stats.median))
        }
    }

    struct ProfileRebuild: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Rebuild PACK from FOLDER COUNT times when it is up to date (for a profiler); print the phases' medians.")
        @Argument(help: "The source folder.") var folder: String
        @Argument(help: "The pack (built first if needed).") var pack: String
        @Argument(help: "How many no-op rebuilds.") var count = 20

        func run() throws {
            var builder = PackBuilder()
            try builder.addDirectory(atPath: folder)
            _ = try builder.writeIfChanged(to: pack)
            var listing: [Double] = []
            var checking: [Double] = []
            for _ in 0..<count {
                let start = now()
                var fresh = PackBuilder()
                try fresh.addDirectory(atPath: folder)
                let listed = now()
                guard try fresh.writeIfChanged(to: pack).outcome == .upToDate else { throw BenchFailure(description: "not up to date") }
                listing.append(Double(listed - start))
                checking.append(Double(now() - listed))
            }
            print("listing", format(Stats(listing).median), "stamp and check", format(Stats(checking).median))
        }
    }

    struct ProfileVariants: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "COUNT image-variant lookups on PACK, then COUNT plain ones (for a profiler).")
        @Argument(help: "The pack.") var pack: String
        @Argument(help: "How many lookups of each kind.") var count = 1_000_000

        func run() throws {
        let store = AssetStore()
        try store.mount(path: pack, priority: .base)
        let opened = try Pack(path: pack)
        let paths = opened.entries.map(\.path)
        var baseSet = Set<String>()
        for path in paths where VariantName(path: path).basePath != path { baseSet.insert(VariantName(path: path).basePath) }
        let bases = baseSet.sorted()
        let count = count
        var found = 0
        var start = now()
        for index in 0..<count where store.image(named: bases[index % bases.count], scale: 3, idiom: .pad) != nil { found += 1 }
        let variant = Double(now() - start) / Double(count)
        start = now()
        for index in 0..<count where store.lookup(paths[index % paths.count]) != nil { found += 1 }
        print("variant", format(variant), "plain", format(Double(now() - start) / Double(count)), found)
        }
    }

    struct ProfileReads: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "COUNT random reads through our reader and the C reference on PACK, in turns; print both per read.")
        @Argument(help: "The pack.") var pack: String
        @Argument(help: "How many reads.") var count = 1_000_000

        func run() throws {
        let opened = try Pack(path: pack)
        let paths = opened.entries.map(\.path)
        let cPaths = paths.map { ContiguousArray($0.utf8CString) }
        var reference = ref_pack()
        guard ref_open(pack, &reference) == 0 else { throw BenchFailure(description: "ref_open failed") }
        var random = SeededRandom(state: 42)
        let picks = (0..<(count)).map { _ in Int(random.next() % UInt64(paths.count)) }
        var (ours, theirs, sum) = (0.0, 0.0, 0)
        for round in stride(from: 0, to: picks.count, by: 1_000) {
            let batch = picks[round..<min(round + 1_000, picks.count)]
            // Who goes first alternates (the second finds the same bytes in the CPU caches).
            for turn in 0..<2 {
                let start = now()
                if (turn + round / 1_000) % 2 == 0 {
                    for index in batch { sum &+= (try? opened.data(forPath: paths[index]))?.withUnsafeBytes(touch) ?? -1 }
                    ours += Double(now() - start)
                } else {
                    for index in batch {
                        var size = 0
                        let found = cPaths[index].withUnsafeBufferPointer {
                            ref_lookup(&reference, $0.baseAddress, $0.count - 1, &size)
                        }
                        sum &+= found.map { touch(UnsafeRawBufferPointer(start: $0, count: size)) } ?? -1
                    }
                    theirs += Double(now() - start)
                }
            }
        }
        ref_close(&reference)
        consume(sum)
        print("ours", format(ours / Double(picks.count)), "C", format(theirs / Double(picks.count)))
        }
    }

    struct RSSProbe: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rss-probe",
            abstract: "Print the resident memory added by opening, and by opening and reading (run in a fresh process).",
            shouldDisplay: false)
        @Argument var systemName: String
        @Argument var root: String
        @Argument var datasetName: String
        @Argument var lookups = 10_000

        func run() throws {
        let dataset = Dataset(
            name: datasetName, root: root,
            names: (try? String(contentsOfFile: root + "/names.txt", encoding: .utf8))?.split(separator: "\n").map(String.init) ?? [])
        let names = Names(dataset)
        var random = SeededRandom(state: 7)
        let lookups = lookups
        let indices = (0..<lookups).map { _ in Int(random.next() % UInt64(names.strings.count)) }
        guard !names.strings.isEmpty, let system = BenchSystem.all.first(where: { $0.name == systemName }) else { throw ExitCode(2) }
        // Warm up with the small bank600 dataset: the library's code pages and lazily built runtime
        // state are not this pack's memory. (Not with this dataset itself: the allocator would hand
        // the freed memory back and hide the cost.)
        let warmRoot = URL(fileURLWithPath: root).deletingLastPathComponent().path + "/bank600-v1"
        if let warmNames = try? String(contentsOfFile: warmRoot + "/names.txt", encoding: .utf8) {
            let warmDataset = Dataset(name: "bank600", root: warmRoot, names: warmNames.split(separator: "\n").map(String.init))
            if let warm = try? system.open(warmDataset, Names(warmDataset)) { consume(warm.read(0)) }
        }
        let before = residentBytes()
        guard let reader = try? system.open(dataset, names) else { throw ExitCode(3) }
        let afterOpen = residentBytes()
        _ = timeBatches(count: lookups, budget: 1) { reader.read(indices[$0]) }
        let afterRead = residentBytes()
        print(afterOpen - before, afterRead - before)
        withExtendedLifetime(reader) {}
        }
    }
}

/// A whole benchmark run: its settings, and the results and figures it gathers.
struct BenchRun {
    let quick: Bool
    let data: String
    let datasets: [String]
    let repository: String
    /// This program, run again for each memory probe.
    let selfPath: String
    let start = now()
    private(set) var results: [BenchResult] = []
    private(set) var figures = Report.Figures()

    var lookups: Int { quick ? 20_000 : 200_000 }
    let openRuns = 20
    var budget: Double { quick ? 0.5 : 3.0 }
    var buildRuns: Int { quick ? 1 : 3 }

    init(quick: Bool, data: String, datasets: [String], repository: String, selfPath: String) {
        self.quick = quick
        self.data = data
        self.datasets = datasets
        self.repository = repository
        self.selfPath = selfPath
    }

    mutating func record(_ dataset: String, _ workload: String, _ system: String, _ stats: Stats, rss: Int? = nil) {
        results.append(
            BenchResult(
                dataset: dataset, workload: workload, system: system, median_ns: stats.median, p10_ns: stats.p10,
                p90_ns: stats.p90, rss_bytes: rss))
    }

    mutating func run() throws {
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        log("packbench: \(quick ? "quick" : "full") run; datasets in \(data)")
        for name in datasets {
            let dataset = try Dataset.prepare(name, in: data, repository: repository)
            let names = Names(dataset)
            var random = SeededRandom(state: 42)
            let indices = (0..<lookups).map { _ in Int(random.next() % UInt64(names.strings.count)) }
            let indexSize = (try? Pack(path: dataset.pack).indexData()?.count) ?? 0
            figures.indexSizes[name] = indexSize
            log("== \(name): \(names.strings.count) files, \(dataset.totalBytes / 1024) KiB, index \(indexSize / 1024) KiB")
            var checksums: [String: Int] = [:]
            // Opens first, every system in turn within each round.
            var openable: [BenchSystem] = []
            for system in BenchSystem.all {
                do {
                    _ = try system.open(dataset, names)
                    openable.append(system)
                } catch {
                    log("   \(system.name): failed: \(error)")
                }
            }
            let opens = try timeInterleaved(openRuns, openable.map { system in { _ = try system.open(dataset, names) } })
            for (system, open) in zip(openable, opens) { record(name, "open", system.name, open) }
            var readers: [(system: BenchSystem, open: Stats, reader: any BenchReader, scanMBps: Double)] = []
            for (system, open) in zip(openable, opens) {
                do {
                    let reader = try system.open(dataset, names)
                    // The same first 32 entries through every system (ZIPFoundation takes ~0.1 s a read on 100k).
                    checksums[system.name] = (0..<min(32, names.strings.count)).reduce(0) { $0 &+ reader.read($1) }
                    // The scan first: it also warms the page cache and the mappings for the random reads.
                    var scanned = 0
                    let scanRuns = quick || names.strings.count > 20_000 && system.name == "zipfoundation" ? 1 : 3
                    let scan = timeRuns(scanRuns) { scanned = reader.scan() }
                    record(name, "scan", system.name, Stats([scan.median, scan.p10, scan.p90].map { $0 / Double(names.strings.count) }))
                    readers.append((system, open, reader, Double(scanned) / scan.median * 1000))
                } catch {
                    log("   \(system.name): failed: \(error)")
                }
            }
            // Random reads: every system in turn, a batch at a time.
            let reads = timeBatchesInterleaved(
                count: lookups, budget: budget, readers.map { entry in { entry.reader.read(indices[$0]) } })
            for (entry, (read, done, sum)) in zip(readers, reads) {
                consume(sum)
                record(name, "random-read", entry.system.name, read)
                log(
                    "   \(entry.system.name.padding(toLength: 14, withPad: " ", startingAt: 0)) open \(format(entry.open.median)) "
                        + " read \(format(read.median))/lookup (\(done) lookups)  scan \(String(format: "%.0f", entry.scanMBps)) MB/s")
            }
            // The floor for any reader: touching the same bytes in the same order with every lookup
            // already done (views into one mapping), so what is left is memory traffic.
            if let pack = try? Pack(path: dataset.pack) {
                let views = names.strings.compactMap { try? pack.data(forPath: $0) }
                if views.count == names.strings.count {
                    let (floor, _, sum) = timeBatches(count: lookups, budget: budget) { views[indices[$0]].withUnsafeBytes(touch) }
                    consume(sum)
                    figures.touchFloors[name] = floor.median
                    log("   touching the bytes alone (no lookup): \(format(floor.median))/read")
                }
            }
            let reference = checksums["assetpack"]
            for (system, checksum) in checksums where checksum != reference {
                log("   WARNING: \(system) read different bytes than assetpack")
            }
            // Resident memory, each system in a fresh process.
            for system in BenchSystem.all {
                let pipe = Pipe()
                let process = Process()
                process.executableURL = URL(fileURLWithPath: selfPath)
                process.arguments = ["rss-probe", system.name, dataset.root, name, String(quick ? 2_000 : 20_000)]
                process.standardOutput = pipe
                try process.run()
                let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                let values = output.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
                if values.count == 2 {
                    if let index = results.lastIndex(where: { $0.dataset == name && $0.workload == "open" && $0.system == system.name }) {
                        results[index].rss_bytes = values[0]
                    }
                    if let index = results.lastIndex(where: { $0.dataset == name && $0.workload == "random-read" && $0.system == system.name }) {
                        results[index].rss_bytes = values[1]
                    }
                }
            }
            // Builds: ours, Info-ZIP zip -0 -r, libzip writing stored entries.
            let output = dataset.root + "/build-output"
            try? FileManager.default.removeItem(atPath: output)
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
            // Builds, each builder in turn within each round.
            let builds = try timeInterleaved(buildRuns, [
                {
                    var builder = PackBuilder(options: .init(name: name))
                    try builder.addDirectory(atPath: dataset.folder)
                    try builder.write(to: output + "/built.pack")
                },
                {
                    try? FileManager.default.removeItem(atPath: output + "/built.zip")
                    _ = try runProcess("/usr/bin/zip", ["-0", "-r", "-q", "-X", output + "/built.zip", "."], in: dataset.folder)
                },
                { try buildWithLibzip(dataset, names, to: output + "/libzip.zip") },
                {
                    // Format 1 (CRC-32 only), the format-2 build's baseline: the cost of hashing.
                    var builder = PackBuilder(options: .init(name: name, format: 1))
                    try builder.addDirectory(atPath: dataset.folder)
                    try builder.write(to: output + "/built-format1.pack")
                },
            ])
            let (ours, infozip, libzip, format1) = (builds[0], builds[1], builds[2], builds[3])
            record(name, "build", "assetpack", ours)
            record(name, "build", "infozip", infozip)
            record(name, "build", "libzip", libzip)
            record(name, "build", "format1", format1)
            log("   build: assetpack \(format(ours.median)), format 1 \(format(format1.median)), zip -0 -r \(format(infozip.median)), libzip \(format(libzip.median))")
            // verify: every entry's CRC-32 and (format 2) SHA-256, read through pread.
            let verifies = try timeInterleaved(buildRuns, [
                { _ = try Pack(path: output + "/built.pack", backend: .read).verify() },
                { _ = try Pack(path: output + "/built-format1.pack", backend: .read).verify() },
            ])
            record(name, "verify", "assetpack", verifies[0])
            record(name, "verify", "format1", verifies[1])
            figures.contentBytes[name] = try Pack(path: output + "/built.pack").verify().checkedBytes
            log("   verify: format 2 \(format(verifies[0].median)), format 1 \(format(verifies[1].median))")
            // A no-op rebuild: the pack is up to date (its stamp matches), the tool's own time.
            let rebuilt = output + "/rebuilt.pack"
            func rebuild() throws -> PackBuilder.Outcome {
                var builder = PackBuilder(options: .init(name: name))
                try builder.addDirectory(atPath: dataset.folder)
                return try builder.writeIfChanged(to: rebuilt).outcome
            }
            _ = try rebuild()
            let noop = try timeRuns(quick ? 3 : 9) {
                guard try rebuild() == .upToDate else { throw BenchFailure(description: "a no-op rebuild built") }
            }
            record(name, "noop-rebuild", "assetpack", noop)
            log("   no-op rebuild \(format(noop.median)) (a full build \(format(ours.median)))")
            // Installing: the loose files, or the one pack, copied as an installer copies.
            if name == "tree3k" {
                let installs = try timeInterleaved(quick ? 1 : 3, [
                    {
                        try? FileManager.default.removeItem(atPath: output + "/install-pack")
                        try Installer.install(["dataset.pack"], from: dataset.root, to: output + "/install-pack")
                    },
                    {
                        try? FileManager.default.removeItem(atPath: output + "/install-files")
                        try Installer.install(names.strings, from: dataset.folder, to: output + "/install-files")
                    },
                ])
                record(name, "install", "assetpack", installs[0])
                record(name, "install", "filesystem", installs[1])
                log("   install: the pack \(format(installs[0].median)), the loose files \(format(installs[1].median))")
                try? FileManager.default.removeItem(atPath: output + "/install-pack")
                try? FileManager.default.removeItem(atPath: output + "/install-files")
            }
            // Ours only: variant lookups and locale swaps.
            try storeBenchmarks(dataset, names: names)
        }
    }

    /// Variant lookups against plain lookups, and locale swaps, on a store of this dataset.
    mutating func storeBenchmarks(_ dataset: Dataset, names: Names) throws {
        let store = AssetStore()
        try store.mount(path: dataset.pack, priority: .base)
        // Base names that have variants, and one variant file of each (a plain lookup of the same cost).
        var variantOf: [String: String] = [:]
        for name in names.strings {
            let base = VariantName(path: name).basePath
            if base != name, variantOf[base] == nil { variantOf[base] = name }
        }
        let variantBases = variantOf.keys.sorted()
        if !variantBases.isEmpty {
            var random = SeededRandom(state: 5)
            let picks = (0..<lookups).map { _ in variantBases[Int(random.next() % UInt64(variantBases.count))] }
            let plainPicks = picks.map { variantOf[$0] ?? $0 }
            let (plain, _, a) = timeBatches(count: lookups, budget: budget) { store.lookup(plainPicks[$0]) == nil ? 0 : 1 }
            let (variant, _, b) = timeBatches(count: lookups, budget: budget) {
                store.image(named: picks[$0], scale: 3, idiom: .pad) == nil ? 0 : 1
            }
            consume(a &+ b)
            record(dataset.name, "variant-lookup", "assetpack", variant)
            figures.plainLookups[dataset.name] = plain.median
            log("   variant lookup \(format(variant.median)) vs plain lookup \(format(plain.median)) (\(variantBases.count) groups)")
        }
        // Locale swaps between three locale packs of this dataset's size.
        var locales: [String] = []
        for locale in ["en", "ru", "de"] {
            let path = dataset.root + "/locale-\(locale).pack"
            if !FileManager.default.fileExists(atPath: path) {
                var builder = PackBuilder(options: .init(name: "\(dataset.name)-\(locale)", locale: locale))
                try builder.addDirectory(atPath: dataset.folder)
                try builder.write(to: path)
            }
            try store.mount(path: path, priority: .locale)
            locales.append(locale)
        }
        var swap = 0
        let swaps = try timeRuns(quick ? 200 : 2000) {
            swap += 1
            try store.setLocale(["ru", "de-AT", "en-GB"][swap % 3])
        }
        record(dataset.name, "locale-swap", "assetpack", swaps)
        log("   locale swap \(format(swaps.median))")
    }
}

func buildWithLibzip(_ dataset: Dataset, _ names: Names, to path: String) throws {
    var error: Int32 = 0
    guard let archive = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &error) else { throw BenchFailure(description: "zip_open \(error)") }
    for (index, name) in names.strings.enumerated() {
        guard let source = zip_source_file(archive, names.fullPaths[index].withUnsafeBufferPointer { $0.baseAddress }, 0, -1) else {
            throw BenchFailure(description: "zip_source_file \(name)")
        }
        let added = zip_file_add(archive, name, source, zip_flags_t(ZIP_FL_ENC_UTF_8))
        guard added >= 0 else { throw BenchFailure(description: "zip_file_add \(name)") }
        zip_set_file_compression(archive, UInt64(added), ZIP_CM_STORE, 0)
    }
    guard zip_close(archive) == 0 else { throw BenchFailure(description: "zip_close") }
}

func format(_ nanoseconds: Double) -> String {
    switch nanoseconds {
    case ..<1_000: String(format: "%.0f ns", nanoseconds)
    case ..<1_000_000: String(format: "%.1f µs", nanoseconds / 1_000)
    case ..<1_000_000_000: String(format: "%.1f ms", nanoseconds / 1_000_000)
    default: String(format: "%.2f s", nanoseconds / 1_000_000_000)
    }
}
