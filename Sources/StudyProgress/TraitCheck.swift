// StudyProgress needs GRDB, which the package resolves only when the `StudyProgress` trait is on,
// so that apps using only the asset libraries never clone it (Package.swift says why).
#if !StudyProgress
#error(
    "StudyProgress needs the package's StudyProgress trait: .package(url: …, from: …, traits: [\"StudyProgress\"]); in this repository, swift build --traits StudyProgress"
)
#endif
