import SystemPackage

extension PackBuilder {
    /// Writes the pack unless the destination already holds the pack these inputs make.
    ///
    /// Build steps run many times an hour; most of them change nothing. Deciding that reads no
    /// file: a stamp of the inputs (every entry's path, size, modification time and identity,
    /// the options, and `extraInputs`, such as a settings file's text) is kept beside the
    /// destination in a hidden file (`.NAME.pack.stamp`, never inside the pack: packs stay
    /// byte-identical across machines) together with the destination's own identity.
    ///
    /// - When the stamp matches and the destination is the file it describes, nothing is read
    ///   or written (``Outcome/upToDate``): its modification time stays, so later build steps
    ///   that copy it do nothing either.
    /// - When the stamp differs but the pack comes out byte-identical (a `git checkout` touches
    ///   modification times), the destination is kept as it was (``Outcome/unchanged``).
    /// - Otherwise the pack is written as ``write(to:)-(String)`` writes it.
    ///
    /// With `force`, the pack is always written. The limit of a stamp: a file whose bytes
    /// changed but whose size, modification time and identity were all restored is not noticed;
    /// `force` builds it anyway.
    ///
    /// - Parameters:
    ///   - destination: the pack to write.
    ///   - extraInputs: other inputs of the build, by name (settings text, a base pack's digest),
    ///     part of the stamp.
    ///   - force: build even if the stamp matches (the result may still be ``Outcome/unchanged``).
    ///   - workFolder: where the stamp and the temporary file go instead of beside the destination
    ///     (a build system's private folder, when the destination's folder is watched); on the
    ///     destination's file system.
    @discardableResult
    public func writeIfChanged(
        to destination: String, extraInputs: [String: String] = [:], force: Bool = false, workFolder: String? = nil
    ) throws(PackError) -> Report {
        let stamp = Stamp(
            path: Stamp.path(for: destination, in: workFolder),
            inputs: stampDigest(destination: destination, extraInputs: extraInputs))
        if !force, let report = stamp.upToDateReport(destination: destination, contentBytes: listedBytes) { return report }
        let report = try write(to: destination, keepingIdentical: !force, workFolder: workFolder)
        stamp.record(destination: destination, report: report)
        return report
    }

    /// The report of the pack at `destination` if it is up to date for these inputs (see
    /// ``writeIfChanged(to:extraInputs:force:workFolder:)``), or `nil` if a build is needed: for a tool that
    /// runs its own checks only when it builds.
    public func upToDateReport(
        at destination: String, extraInputs: [String: String] = [:], workFolder: String? = nil
    ) -> Report? {
        Stamp(
            path: Stamp.path(for: destination, in: workFolder),
            inputs: stampDigest(destination: destination, extraInputs: extraInputs)
        ).upToDateReport(destination: destination, contentBytes: listedBytes)
    }

    /// The bytes of all entries, as listed.
    private var listedBytes: UInt64 {
        entries.reduce(0) { total, entry in
            switch entry.contents {
            case .bytes(let bytes): total + UInt64(bytes.count)
            case .file(let source): total + source.listed.size
            }
        }
    }

    /// SHA-256 over the options and every entry as listed (path, size, modification time,
    /// identity): what decides whether a build is needed. Reads no file's bytes.
    package func stampDigest(destination: String, extraInputs: [String: String] = [:]) -> String {
        // Entries in the order they were added (a folder's listing is in byte order already): the
        // same inputs give the same stamp, and another order only means one more build.
        var hasher = StampHasher()
        let name = options.name ?? PackMetadata.defaultName(forFile: destination)
        var header = "stamp/1\nname=\(name)\nalignment=\(options.alignment)\nlocale=\(options.locale ?? "")\n"
        header += "version=\(options.contentVersion ?? "")\ntimestamp=\(options.timestamp.map(String.init) ?? "")\n"
        // Format 1 was the only format before this line existed: its stamps stay valid.
        if options.format != 1 { header += "format=\(options.format)\n" }
        for key in extraInputs.keys.sorted() { header += "extra \(key)=\(extraInputs[key] ?? "")\n" }
        hasher.update(Array(header.utf8))
        for entry in entries {
            hasher.update(entry.utf8)
            hasher.update(UInt8(0))
            switch entry.contents {
            case .bytes(let bytes):
                hasher.update(UInt8(0))
                hasher.update(UInt64(bytes.count))
                hasher.update(UInt64(bytes.withUnsafeBytes { CRC32.checksum($0) }))
            case .file(let source):
                let listed = source.listed
                hasher.update(UInt8(1))
                hasher.update(listed.size)
                hasher.update(UInt64(bitPattern: listed.modificationSeconds))
                hasher.update(UInt64(bitPattern: listed.modificationNanoseconds))
                hasher.update(listed.inode)
                hasher.update(listed.device)
            }
        }
        return hasher.finish()
    }
}

/// The stamp of a build: the inputs' digest and the identity of the pack they made.
private struct Stamp {
    let path: String
    let inputs: String

    /// `FOLDER/.NAME.pack.stamp` for `FOLDER/NAME.pack`, or in `workFolder` when given.
    static func path(for destination: String, in workFolder: String?) -> String {
        let slash = destination.lastIndex(of: "/")
        let folder = workFolder.map { $0.hasSuffix("/") ? $0 : $0 + "/" } ?? slash.map { String(destination[...$0]) } ?? ""
        let base = slash.map { String(destination[destination.index(after: $0)...]) } ?? destination
        return folder + "." + base + ".stamp"
    }

    /// The report of the pack already at `destination`, when the stamp says it is the pack of
    /// these inputs; `nil` when it must be built.
    func upToDateReport(destination: String, contentBytes: UInt64) -> PackBuilder.Report? {
        guard let text = try? readRegularFile(path, limit: 1 << 16),
            let recorded = Self.parse(String(decoding: text, as: UTF8.self)),
            recorded.inputs == inputs, let identity = try? FileIdentity(path: destination), identity == recorded.pack
        else { return nil }
        // Up to date, nothing to write; temporary files of killed builds still go.
        let slash = path.lastIndex(of: "/")
        let base = String(path[(slash.map { path.index(after: $0) } ?? path.startIndex)...].dropFirst().dropLast(".stamp".count))
        ReplacementFile.removeStale(base: base, in: slash.map { String(path[..<$0]) } ?? ".")
        // (The destination is the very file the stamp describes: what it says of it holds.)
        return PackBuilder.Report(
            path: destination, metadata: recorded.metadata, fileSize: identity.size, contentBytes: contentBytes,
            indexSize: recorded.indexSize, outcome: .upToDate)
    }

    /// Records the stamp for the pack now at `destination` (written under a temporary name and
    /// renamed; a stamp that cannot be written only means the next build builds).
    func record(destination: String, report: PackBuilder.Report) {
        guard let identity = try? FileIdentity(path: destination) else { return }
        // Name, locale and version as a JSON array (null where not set): one line, any text.
        var names: [UInt8] = [UInt8(ascii: "[")]
        for (index, text) in [report.metadata.name, report.metadata.locale, report.metadata.contentVersion].enumerated() {
            if index > 0 { names.append(UInt8(ascii: ",")) }
            if let text { JSONEscape.append(Array(text.utf8), to: &names) } else { names += Array("null".utf8) }
        }
        names.append(UInt8(ascii: "]"))
        let text =
            "stamp/1\ninputs=\(inputs)\ndevice=\(identity.device)\ninode=\(identity.inode)\nsize=\(identity.size)\n"
            + "mtime=\(identity.modificationSeconds).\(identity.modificationNanoseconds)\n"
            + "alignment=\(report.metadata.alignment)\nentries=\(report.metadata.entryCount)\n"
            + "digest=\(report.metadata.digest)\nindexSize=\(report.indexSize)\n"
            + "names=\(String(decoding: names, as: UTF8.self))\n"
        // Named like the builder's temporary files, so a build killed here leaves one that the
        // next build of the same pack removes.
        let temporary = String(path.dropLast(".stamp".count)) + ".tmp-\(Platform.processID)-stamp"
        guard case .success(let file) = Platform.system({
            try FileDescriptor.open(
                temporary, .writeOnly, options: [.create, .truncate, .noFollow, .closeOnExec],
                permissions: [.ownerReadWrite, .groupRead, .otherRead])
        }) else { return }
        let written = Array(text.utf8).withUnsafeBytes { FileAccess.writeAll(file, $0) }
        _ = try? file.close()
        if case .success = written, case .success = Platform.rename(temporary, to: path) { return }
        Platform.removeFile(temporary)
    }

    private static func parse(_ text: String) -> (inputs: String, pack: FileIdentity, metadata: PackMetadata, indexSize: UInt64)? {
        var fields: [Substring: Substring] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            fields[line[..<equals]] = line[line.index(after: equals)...]
        }
        guard text.hasPrefix("stamp/1\n"), let inputs = fields["inputs"], let device = fields["device"].flatMap({ UInt64($0) }),
            let inode = fields["inode"].flatMap({ UInt64($0) }), let size = fields["size"].flatMap({ UInt64($0) }),
            let mtime = fields["mtime"]?.split(separator: "."), mtime.count == 2, let seconds = Int64(mtime[0]),
            let nanoseconds = Int64(mtime[1]), let alignment = fields["alignment"].flatMap({ Int($0) }),
            let entryCount = fields["entries"].flatMap({ Int($0) }), let digest = fields["digest"],
            let indexSize = fields["indexSize"].flatMap({ UInt64($0) }), let names = fields["names"],
            case .array(let parts)? = (try? JSONValue.parse(Array(names.utf8)))?.kind, parts.count == 3,
            let name = parts[0].string
        else { return nil }
        let metadata = PackMetadata(
            name: name, locale: parts[1].string, contentVersion: parts[2].string, alignment: alignment,
            entryCount: entryCount, digest: String(digest))
        let identity = FileIdentity(
            device: device, inode: inode, size: size, modificationSeconds: seconds, modificationNanoseconds: nanoseconds)
        return (String(inputs), identity, metadata, indexSize)
    }
}

/// Comparing two files' bytes, through read-only mappings.
enum FileComparison {
    /// Whether the regular files at `a` and `b` exist and hold the same bytes.
    static func sameBytes(_ a: String, _ b: String) -> Bool {
        guard let (left, _) = try? ByteSource.open(path: a, backend: .mapped),
            let (right, _) = try? ByteSource.open(path: b, backend: .mapped), left.size == right.size,
            case .mapped(let leftBytes) = left, case .mapped(let rightBytes) = right
        else { return false }
        return leftBytes.bytes.equals(0..<leftBytes.count, rightBytes.bytes)
    }
}

/// A 128-bit hash of a build's inputs: two independent multiply-xorshift lanes over eight-byte
/// words, fed as it goes. The stamp only has to notice change (an accidental collision is 2⁻¹²⁸
/// unlikely); SHA-256 took a third of a no-op rebuild of 100,000 files.
private struct StampHasher {
    private var a: UInt64 = 0x9E37_79B9_7F4A_7C15
    private var b: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    /// Bytes not yet making a whole word, low byte first.
    private var pending: UInt64 = 0
    private var pendingCount: UInt64 = 0
    private var length: UInt64 = 0

    private mutating func mix(_ word: UInt64) {
        a = (a ^ word) &* 0xBF58_476D_1CE4_E5B9
        a ^= a >> 31
        b = (b ^ (word &* 0x94D0_49BB_1331_11EB)) &* 0x9E37_79B9_7F4A_7C15
        b ^= b >> 29
    }

    /// One byte.
    mutating func update(_ byte: UInt8) {
        pending |= UInt64(byte) << (pendingCount &* 8)
        pendingCount += 1
        length &+= 1
        if pendingCount == 8 {
            mix(pending)
            pending = 0
            pendingCount = 0
        }
    }

    /// A number, as eight bytes.
    mutating func update(_ value: UInt64) {
        if pendingCount == 0 {
            mix(value)
            length &+= 8
        } else {
            for shift in stride(from: UInt64(0), to: 64, by: 8) { update(UInt8(truncatingIfNeeded: value >> shift)) }
        }
    }

    mutating func update<C: Collection<UInt8>>(_ bytes: C) { for byte in bytes { update(byte) } }

    func finish() -> String {
        var copy = self
        copy.mix(copy.pending ^ (copy.length << 8))
        func hex(_ value: UInt64) -> String {
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
        return "mix128:" + hex(copy.a) + hex(copy.b)
    }
}
