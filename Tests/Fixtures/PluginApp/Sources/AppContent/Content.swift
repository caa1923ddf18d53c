import AssetLibrary
import Foundation

/// The app's store: its packs, as the plugin built them into this target's resources.
public func makeStore() throws -> AssetStore {
    let store = AssetStore()
    for name in ["words", "words-ru"] {
        guard let url = Bundle.module.url(forResource: name, withExtension: "pack") else {
            throw StoreError(.notFound, "no \(name).pack in the bundle")
        }
        try store.mount(contentsOf: url)
    }
    return store
}
