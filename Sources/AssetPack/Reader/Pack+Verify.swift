import Dispatch

/// What ``Pack/verify()`` checked.
public struct VerificationReport: Sendable, Equatable {
    /// The number of entries checked (the index included).
    public var entryCount: Int
    /// The bytes whose CRC-32 was checked (after inflating, for deflated entries).
    public var checkedBytes: UInt64
    /// The entries whose SHA-256 was checked against the index (format 2; 0 for format 1).
    public var hashedEntries: Int = 0
}

extension Pack {
    /// The strict, complete check of the whole pack.
    ///
    /// Walks the central directory and every local header and checks that they agree with each
    /// other and with the index; checks the CRC-32 of every entry and, in format 2, its SHA-256
    /// (so bytes changed to keep their CRC are still found); that no two entries' bytes
    /// overlap; that names are safe and unique, also on case-insensitive file systems. For packs
    /// with an index, also: every entry stored, UTF-8 flagged and aligned, the index last, its
    /// metadata and digest matching the entries.
    ///
    /// - Returns: what was checked.
    /// - Throws: the first problem found, as a ``PackError`` naming the entry and offset.
    @discardableResult
    public func verify() throws(PackError) -> VerificationReport {
        do {
            return try verifyAll(checkingData: true)
        } catch {
            throw error.at(file: path)
        }
    }

    /// ``verify()`` of the records only: the central directory, every local header, offsets,
    /// overlaps, the index and the digest, but not the entries' bytes nor the names' safety and
    /// collisions. The builder uses it on the pack it has just written: it checked the names
    /// before writing and checksummed the bytes as it wrote them.
    func verifyStructure() throws(PackError) {
        do {
            try verifyAll(checkingData: false)
        } catch {
            throw error.at(file: path)
        }
    }

    @discardableResult
    /// - Parameter checkingData: also the bytes' CRC-32s and the names (`false` for the builder).
    ///
    /// Problems are reported in this order: the records (central directory against the index,
    /// in entry order), then names that collide, then the first entry whose local header or bytes
    /// are wrong, then overlaps, then the digest. The records are checked on one core while the
    /// others check the local headers and bytes (see ``checkEntries(_:checkingData:entry:alongside:)``).
    private func verifyAll(checkingData: Bool) throws(PackError) -> VerificationReport {
        let records = try CentralDirectory.read(source: source, end: endRecord)
        guard records.count == table.count else {
            throw PackError(
                .indexMismatch, "the central directory has \(records.count) entries, the index \(table.count)")
        }
        // Format 2: every listed SHA-256, from one read of the index.
        let listed = try listedHashes()
        @Sendable func listedHash(_ number: Int) -> EntryHash? {
            guard metadata != nil, number < records.count - 1, let listed, number < listed.count else { return nil }
            return listed[number]
        }
        // Format 2 is canonical: every byte is the builder's (checked last, so that a more
        // precise problem is reported first).
        let writer = checkingData ? canonicalWriter(records) : nil
        let recordCheck = RecordCheckOutcome()
        let entries = checkEntries(
            records.count, checkingData: checkingData,
            entry: { number in
                EntryCheck(
                    number: number, name: CentralDirectory.utf8Name(records[number]), central: records[number],
                    listedDataOffset: table.row(number).dataOffset, sha256: checkingData ? listedHash(number) : nil,
                    canonicalWriter: writer)
            },
            alongside: {
                recordCheck.result = Result { () throws(PackError) in
                    try checkRecords(records, listedHash: listedHash, checkingData: checkingData)
                }
            })
        guard let recordResult = recordCheck.result else { throw PackError(.io, "the records were not checked") }
        let digest = try recordResult.get()
        if let failure = entries.failure { throw failure }
        var spans = records.indices.map { ($0, records[$0].localHeaderOffset, entries.dataOffsets[$0] + records[$0].compressedSize) }
        spans.sort { $0.1 < $1.1 }
        for (previous, next) in zip(spans, spans.dropFirst()) where next.1 < previous.2 {
            throw PackError(
                .overlappingEntries, "overlaps \"\(table.path(previous.0))\"", at: .pack(entry: table.path(next.0), offset: next.1))
        }
        if let metadata, let digest, digest != metadata.digest {
            throw PackError(
                .indexMismatch, "digest is \(digest), the index says \(metadata.digest)", at: .pack(entry: PackPath.indexPath))
        }
        if let writer {
            if let number = entries.firstNonCanonicalHeader {
                throw PackError(
                    .notCanonical, "its local header is not what the builder writes", at: .pack(entry: table.path(number), offset: records[number].localHeaderOffset))
            }
            try checkCanonicalRecords(records, hashes: listed ?? [], writer: writer)
        }
        let hashedEntries = checkingData ? (0..<records.count).count(where: { listedHash($0) != nil }) : 0
        return VerificationReport(entryCount: records.count, checkedBytes: entries.checkedBytes, hashedEntries: hashedEntries)
    }

    /// The records in entry order: each central record against the index and, for our packs,
    /// the format's contract; then (when `checkingData`) names that cannot be extracted side by
    /// side. Returns the digest of the manifest the records make (`nil` for zips without an index).
    private func checkRecords(
        _ records: [ZipCentralRecord], listedHash: (Int) -> EntryHash?, checkingData: Bool
    ) throws(PackError) -> String? {
        var digest = metadata.map {
            ManifestDigest(
                format: $0.formatVersion, name: $0.name, locale: $0.locale, contentVersion: $0.contentVersion,
                alignment: $0.alignment)
        }
        for (number, central) in records.enumerated() {
            let name = CentralDirectory.utf8Name(central)
            func problem(_ code: PackError.Code, _ detail: String, offset: UInt64? = nil) -> PackError {
                PackError(code, detail, at: .pack(entry: String(decoding: name, as: UTF8.self), offset: offset ?? central.recordOffset))
            }
            let row = table.row(number)
            // Central directory against the table (the index, for our packs).
            guard table.pathBytes(number).elementsEqual(name) else {
                throw problem(.indexMismatch, "entry \(number) is \"\(table.path(number))\" in the index")
            }
            guard central.crc32 == row.crc32, central.size == row.size,
                central.compressedSize == table.compressedSize(number)
            else { throw problem(.indexMismatch, "CRC or size differs from the index") }
            if central.flags & ZipConstants.flagEncrypted != 0 { throw problem(.encrypted, "") }
            if checkingData, let unsafe = PackPath.problem(with: name, allowDirectory: metadata == nil) {
                throw problem(.unsafeName, unsafe)
            }
            // Our packs: the format contract (the local headers are held to the index elsewhere).
            guard let metadata else { continue }
            guard central.method == ZipConstants.methodStored, central.flags & ZipConstants.flagUTF8 != 0,
                central.flags & ZipConstants.flagDataDescriptor == 0
            else { throw problem(.indexMismatch, "not stored with the UTF-8 flag and no data descriptor") }
            guard row.dataOffset % UInt64(metadata.alignment) == 0 else {
                throw problem(
                    .misaligned, "data at \(row.dataOffset) is not a multiple of \(metadata.alignment)",
                    offset: row.dataOffset)
            }
            if number < records.count - 1 {
                let hash = listedHash(number)
                if metadata.formatVersion >= 2, hash == nil { throw problem(.badIndex, "the index lists no SHA-256 for it") }
                digest?.add(path: name, size: central.size, crc32: central.crc32, sha256: hash)
            } else if !name.elementsEqual(PackPath.indexPath.utf8) {
                throw problem(.badIndex, "the last entry is not \(PackPath.indexPath)")
            }
        }
        // Names that cannot be extracted side by side on a case-insensitive file system.
        let names = { (number: Int) in CentralDirectory.utf8Name(records[number])[...] }
        switch checkingData ? CollisionKeys.firstClash(count: records.count, name: names) : nil {
        case .sameKey(let earlier, let later)?:
            throw PackError(
                .nameCollision, "collides with \"\(table.path(earlier))\"", at: .pack(entry: table.path(later), offset: records[later].recordOffset))
        case .fileIsFolder(let file, let entry)?:
            throw PackError(
                .nameCollision, "is a file and also the folder of \"\(table.path(entry))\"", at: .pack(entry: table.path(file), offset: records[file].recordOffset))
        case nil:
            break
        }
        guard var digest else { return nil }
        return digest.finish()
    }
}

/// What ``Pack/checkRecords(_:listedHash:checkingData:)`` found, set by the one worker that runs
/// it and read after all workers are done.
final class RecordCheckOutcome: @unchecked Sendable {
    var result: Result<String?, PackError>?
}
