# Sourced by the scripts in Scripts/: how this repository builds itself.
# The package's StudyProgress trait is on for every build here (Package.swift says why it exists),
# so every swift build and swift test of the main package passes the same flags and shares one
# build folder.
traits=(--traits StudyProgress)

# Builds in release (swift build's arguments: --product NAME) and fails when the build fails;
# the progress lines are left out. build_release is the main package (with its trait),
# build_benchmarks the benchmarks' own package in Tests/Benchmarks (which turns the trait on in
# its dependency on the main package).
build_release() {
  { swift build -c release "${traits[@]}" "$@" 2>&1; } | { grep -vE '^\[[0-9]+/[0-9]+\]' || true; }
}
build_benchmarks() {
  { swift build -c release --package-path Tests/Benchmarks "$@" 2>&1; } | { grep -vE '^\[[0-9]+/[0-9]+\]' || true; }
}

# Runs a benchmark program (its output also goes to the terminal) and records the run as a DocC
# article: ARTICLE TITLE COMMAND... writes ARTICLE with the date, the machine and the output.
record_benchmark() {
  local article="$1" title="$2"
  shift 2
  local output
  output="$(mktemp)"
  "$@" | tee "$output"
  local status=${PIPESTATUS[0]}
  if [ "$status" -ne 0 ]; then rm -f "$output"; return "$status"; fi
  # Read before the article is rewritten, which would count as a change of its own.
  local commit
  commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet -- . ":(exclude)$article" 2>/dev/null || echo ' (with uncommitted changes)')"
  {
    echo "# $title"
    echo
    echo "The last run of \`Scripts/$(basename "$0")${BENCH_ARGS:+ $BENCH_ARGS}\`, written by that script; run it again to regenerate this page."
    echo
    echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "- Machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //' || uname -m)), $(free -g 2>/dev/null | awk '/Mem:/ {print $2 " GiB"}'), $(uname -sr)"
    echo "- Toolchain: $(swift --version 2>/dev/null | head -n 1)"
    echo "- Commit: $commit"
    echo
    echo '```'
    cat "$output"
    echo '```'
  } > "$article"
  rm -f "$output"
  echo "recorded in $article" >&2
}
