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
        if !force, let report = stamp.upToDateReport(destination: destination) { return report }
        let report = try write(to: destination, keepingIdentical: !force, workFolder: workFolder)
        stamp.record(destination: destination)
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
        ).upToDateReport(destination: destination)
    }

    /// SHA-256 over the options and every entry as listed (path, size, modification time,
    /// identity): what decides whether a build is needed. Reads no file's bytes.
    package func stampDigest(destination: String, extraInputs: [String: String] = [:]) -> String {
        var hasher = SHA256()
        let name = options.name ?? PackMetadata.defaultName(forFile: destination)
        var header = "stamp/1\nname=\(name)\nalignment=\(options.alignment)\nlocale=\(options.locale ?? "")\n"
        header += "version=\(options.contentVersion ?? "")\ntimestamp=\(options.timestamp.map(String.init) ?? "")\n"
        for key in extraInputs.keys.sorted() { header += "extra \(key)=\(extraInputs[key] ?? "")\n" }
        hasher.update(Array(header.utf8))
        for entry in entries.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            hasher.update(entry.utf8)
            var fields: [UInt64]
            switch entry.contents {
            case .bytes(let bytes):
                fields = [0, UInt64(bytes.count), UInt64(bytes.withUnsafeBytes { CRC32.checksum($0) })]
            case .file(let source):
                let listed = source.listed
                fields = [
                    1, listed.size, UInt64(bitPattern: listed.modificationSeconds),
                    UInt64(bitPattern: listed.modificationNanoseconds), listed.inode, listed.device,
                ]
            }
            hasher.update([0])
            for field in fields { withUnsafeBytes(of: field.littleEndian) { hasher.update($0) } }
        }
        return "sha256:" + SHA256.hex(hasher.finalize())
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
    func upToDateReport(destination: String) -> PackBuilder.Report? {
        guard let text = try? readRegularFile(path, limit: 4096),
            let recorded = Self.parse(String(decoding: text, as: UTF8.self)),
            recorded.inputs == inputs, let identity = try? FileIdentity(path: destination), identity == recorded.pack,
            let pack = try? Pack(path: destination), let metadata = pack.metadata
        else { return nil }
        // Up to date, nothing to write; temporary files of killed builds still go.
        let slash = path.lastIndex(of: "/")
        let base = String(path[(slash.map { path.index(after: $0) } ?? path.startIndex)...].dropFirst().dropLast(".stamp".count))
        AtomicPublisher.removeStale(base: base, in: slash.map { String(path[..<$0]) } ?? ".")
        let indexSize = UInt64((try? pack.indexData()?.count) ?? 0)
        return PackBuilder.Report(
            path: destination, metadata: metadata, fileSize: pack.fileSize,
            contentBytes: pack.entries.reduce(0) { $0 + $1.size }, indexSize: indexSize, outcome: .upToDate)
    }

    /// Records the stamp for the pack now at `destination` (written under a temporary name and
    /// renamed; a stamp that cannot be written only means the next build builds).
    func record(destination: String) {
        guard let identity = try? FileIdentity(path: destination) else { return }
        let text =
            "stamp/1\ninputs=\(inputs)\ndevice=\(identity.device)\ninode=\(identity.inode)\nsize=\(identity.size)\n"
            + "mtime=\(identity.modificationSeconds).\(identity.modificationNanoseconds)\n"
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

    private static func parse(_ text: String) -> (inputs: String, pack: FileIdentity)? {
        var fields: [Substring: Substring] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            fields[line[..<equals]] = line[line.index(after: equals)...]
        }
        guard text.hasPrefix("stamp/1\n"), let inputs = fields["inputs"], let device = fields["device"].flatMap({ UInt64($0) }),
            let inode = fields["inode"].flatMap({ UInt64($0) }), let size = fields["size"].flatMap({ UInt64($0) }),
            let mtime = fields["mtime"]?.split(separator: "."), mtime.count == 2, let seconds = Int64(mtime[0]),
            let nanoseconds = Int64(mtime[1])
        else { return nil }
        return (
            String(inputs),
            FileIdentity(
                device: device, inode: inode, size: size, modificationSeconds: seconds,
                modificationNanoseconds: nanoseconds)
        )
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
