import AssetPack

/// Computes locale fallback chains with our own rules (Foundation on Linux ignores the
/// environment's locale, and Apple's and Android's rules differ).
public enum LocaleFallback {
    /// The chain for `requested`: the tag, then less specific forms in the same script, then
    /// other regions of the same language and script among `available` (as Android 7 does, the
    /// language's main region first), then the development locale's own chain.
    ///
    /// Never crosses scripts: `zh-Hant-TW` falls back to `zh-Hant`, never to `zh` or `zh-Hans`;
    /// `sr-Latn` never to `sr` (Cyrillic). `und` goes straight to the development locale.
    public static func chain(for requested: LocaleTag, development: LocaleTag, available: [LocaleTag] = []) -> [LocaleTag] {
        var chain: [LocaleTag] = []
        func add(_ tag: LocaleTag) {
            if !chain.contains(where: { $0.sameLocale(as: tag) }) { chain.append(tag) }
        }
        func addOwnChain(_ tag: LocaleTag) {
            guard !tag.isUndetermined else { return }
            let language = tag.language
            add(tag)
            add(LocaleTag(language: language, script: tag.script, region: tag.region))
            let script = tag.effectiveScript
            if let region = tag.region, tag.script == nil, let script, !tag.usesDefaultScript {
                add(LocaleTag(language: language, script: script, region: region))
            }
            if let script { add(LocaleTag(language: language, script: script)) }
            if tag.usesDefaultScript { add(LocaleTag(language: language)) }
            // Other regions of the same language and script that are available.
            let siblings = available.filter {
                $0.language == language && $0.effectiveScript == script && !chain.contains(where: $0.sameLocale)
            }
            let preferred = LocaleTag.likelyRegion(language: language, script: script)
            for sibling in siblings.sorted(by: {
                ($0.region == preferred ? 0 : 1, $0.description) < ($1.region == preferred ? 0 : 1, $1.description)
            }) {
                add(sibling)
            }
        }
        addOwnChain(requested)
        addOwnChain(development)
        return chain
    }
}
