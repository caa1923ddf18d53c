extension Pack {
    /// The JSON index a pack of this zip's files would carry (for zips without one): files in
    /// path order with their real entry numbers and data offsets; folder entries left out.
    public func synthesizedIndex() throws(PackError) -> [UInt8] {
        if let index = try indexData() { return Array(index) }
        let name = PackMetadata.defaultName(forFile: path)
        var digest = ManifestDigest(format: 1, name: name, locale: nil, contentVersion: nil, alignment: 1)
        var entries: [ZipEntryLocation] = []
        for position in 0..<table.count {
            let number = table.sorted(position)
            let row = table.row(number)
            guard table.pathBytes(number).last != UInt8(ascii: "/") else { continue }
            let offset = try dataOffset(entryNumber: number)
            digest.add(path: table.pathBytes(number), size: row.size, crc32: row.crc32, sha256: nil)
            entries.append(
                ZipEntryLocation(
                    number: number, path: Array(table.pathBytes(number)), headerOffset: table.localHeaderOffset(number),
                    dataOffset: offset, size: row.size, crc32: row.crc32))
        }
        let metadata = PackMetadata(
            formatVersion: 1, name: name, alignment: 1, entryCount: entries.count, digest: digest.finish())
        return IndexWriter.json(metadata: metadata, entries: entries)
    }
}
