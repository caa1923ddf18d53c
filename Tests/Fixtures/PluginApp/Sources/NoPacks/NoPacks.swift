/// A target with no Packs/ folder.
public let noPacks = true
