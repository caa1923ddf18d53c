import AppContent
import AssetLibrary
import NoPacks

// Prints what the packs hold, through the store, in English and then in Russian.
let store = try makeStore()
for locale in ["en", "ru"] {
    try store.setLocale(locale)
    let deck = try store.data(forPath: "Decks/words.json")
    print(locale, String(decoding: deck, as: UTF8.self).filter { !$0.isNewline })
}
if let picture = store.image(named: "Images/cat.png", scale: 2) { print("picture", picture.path) }
print("noPacks", noPacks)
