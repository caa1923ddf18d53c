import AssetPack

extension LocaleTag {
    /// Parses `text`, reporting a malformed tag as the store's own error.
    init(parsing text: String) throws(StoreError) {
        do {
            self = try Self.parse(text)
        } catch {
            throw StoreError(.malformedLocale, error.reason, at: .item(text))
        }
    }
}
