#!/usr/bin/env bash
# Run the tests of the workspace: build the binaries (the end-to-end tests
# run them), then the unit, integration and end-to-end tests, then doc tests.
#
#   scripts/test.sh [ARGS...]           the default tier (a few minutes)
#   scripts/test.sh --heavy [ARGS...]   the heavy tier only: the tests marked
#                                       #[ignore = "heavy tier: ..."] (crash
#                                       and load runs, kills at every step,
#                                       the 100 MB line, the whole corpus, the
#                                       real Claude Code and Codex CLIs);
#                                       CI (.ci/run) runs both
#
# ARGS go to cargo nextest (or cargo test), e.g. -p mem-index or
# -E 'test(b14)'. Tests that need ../shared (the external corpus and eval
# sets beside the project: extra coverage) print "SKIPPED <test>" when it is
# missing; the run then shows those lines and ends with how many tests
# skipped, and why.
set -euo pipefail
cd "$(dirname "$0")/.."

heavy=0
if [ "${1:-}" = --heavy ]; then
  heavy=1
  shift
fi

locked=()
[ -f Cargo.lock ] && locked=(--locked)

shared_missing=0
[ -d "${MEM_SHARED_DIR:-../shared}" ] || shared_missing=1
log=$(mktemp "${TMPDIR:-/tmp}/mem-test.XXXXXX")
trap 'rm -f "$log"' EXIT

cargo build --workspace --bins "${locked[@]}"
status=0
if cargo nextest --version >/dev/null 2>&1; then
  show=()
  # Passing tests' output is hidden unless asked for: show it at the end
  # when tests skip, so the SKIPPED lines are where people look.
  [ $shared_missing = 1 ] && show=(--success-output final)
  tier=()
  [ $heavy = 1 ] && tier=(--run-ignored only)
  cargo nextest run --workspace "${locked[@]}" --no-fail-fast "${tier[@]}" "${show[@]}" "$@" 2>&1 \
    | tee "$log" || status=$?
else
  echo "cargo-nextest not found: running cargo test" >&2
  tier=()
  [ $heavy = 1 ] && tier=(--ignored)
  cargo test --workspace "${locked[@]}" --no-fail-fast "$@" -- --show-output "${tier[@]}" 2>&1 \
    | tee "$log" || status=$?
fi
[ $heavy = 1 ] || cargo test --workspace --doc "${locked[@]}" || status=$?

# One count per skipped test (each prints its line on stdout and stderr).
# skipped GREP-FLAGS: the tests whose SKIPPED line does (-e) or does not (-v)
# name ../shared.
skipped() {
  { grep -E '^[[:space:]]*SKIPPED ' "$log" || true; } | { grep "$1" '\.\./shared' || true; } |
    sed -E 's/^[[:space:]]*SKIPPED ([^ :]+).*/\1/' | sort -u | wc -l | tr -d ' '
}
n_shared=$(skipped -e)
n_other=$(skipped -v)
if [ "$n_shared" -gt 0 ] || [ "$n_other" -gt 0 ]; then
  echo "SKIPPED: $n_shared skipped (../shared missing: the external corpus and eval sets, extra coverage), $n_other skipped (a tool missing: python3, git, make or prlimit; npm or its registry for the real clients; or no way to make a directory read-only)" >&2
  [ $shared_missing = 1 ] && echo "  put the shared corpus beside the project as ../shared (or set MEM_SHARED_DIR) to run them" >&2
fi
exit $status
