# Sourced by the scripts in Scripts/: how this repository builds itself.
# The package's StudyProgress trait is on for every build here (Package.swift says why it exists),
# so every swift build and swift test of the main package passes the same flags and shares one
# build folder.
traits=(--traits StudyProgress)

# Builds PRODUCT in release (of the main package, or of the one in --package-path DIR) and fails
# when the build fails; the progress lines are left out.
build_release() {
  { swift build -c release "${traits[@]}" "$@" 2>&1; } | { grep -vE '^\[[0-9]+/[0-9]+\]' || true; }
}
