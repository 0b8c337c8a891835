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
# sets beside the project: extra coverage) or a tool that is missing print
# "SKIPPED <test>" and pass; the output of passing tests is kept out of the
# terminal (nextest's profile `test-sh`, .config/nextest.toml, keeps it in
# a JUnit report), and the run ends with what skipped and why, then the
# totals alone on the last line:
#
#   test.sh: skipped: ../shared missing: 3; heavy tier (scripts/test.sh --heavy): 7
#   662 passed, 0 failed, 10 skipped
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
doclog=$(mktemp "${TMPDIR:-/tmp}/mem-test-doc.XXXXXX")
trap 'rm -f "$log" "$doclog"' EXIT

cargo build --workspace --bins "${locked[@]}"
status=0
# outputs: where the SKIPPED lines of passing tests are to be found
outputs=$log
if cargo nextest --version >/dev/null 2>&1; then
  runner=nextest
  junit="${CARGO_TARGET_DIR:-target}/nextest/test-sh/junit.xml"
  rm -f "$junit"
  tier=()
  [ $heavy = 1 ] && tier=(--run-ignored only)
  cargo nextest run --profile test-sh --workspace "${locked[@]}" --no-fail-fast "${tier[@]}" "$@" 2>&1 \
    | tee "$log" || status=$?
  outputs=$junit
else
  runner=test
  echo "cargo-nextest not found: running cargo test" >&2
  tier=()
  [ $heavy = 1 ] && tier=(--ignored)
  cargo test --workspace "${locked[@]}" --no-fail-fast "$@" -- --show-output "${tier[@]}" 2>&1 \
    | tee "$log" || status=$?
fi
if [ $heavy = 0 ]; then
  cargo test --workspace --doc "${locked[@]}" 2>&1 | tee "$doclog" || status=$?
fi

# sum_results FILE WORD: the sum of "N WORD" over the `test result:` lines
# of cargo test's output in FILE.
sum_results() {
  { grep -E '^test result:' "$1" || true; } |
    { grep -oE "[0-9]+ $2" || true; } | awk '{ n += $1 } END { print n + 0 }'
}
# One count per skipped test (each prints its line on stdout and stderr).
# skipped GREP-FLAGS: the tests whose SKIPPED line does (-e) or does not (-v)
# name ../shared.
skipped() {
  [ -f "$outputs" ] || { echo 0; return; }
  { grep -E 'SKIPPED ' "$outputs" || true; } | { grep "$1" '\.\./shared' || true; } |
    sed -E 's/^.*SKIPPED ([^ :]+).*/\1/' | sort -u | wc -l | tr -d ' '
}
n_shared=$(skipped -e)
n_tool=$(skipped -v)
if [ $runner = nextest ]; then
  # "Summary [ 1.2s] 672 tests run: 670 passed, 2 failed, 10 skipped"
  summary=$({ grep -E '^[[:space:]]*Summary \[' "$log" || true; } | tail -n 1)
  n_run=$(sed -nE 's/.* ([0-9]+) tests? run:.*/\1/p' <<<"$summary")
  n_pass=$(sed -nE 's/.* run: ([0-9]+) passed.*/\1/p' <<<"$summary")
  n_ignored=$(sed -nE 's/.* ([0-9]+) skipped.*/\1/p' <<<"$summary")
  n_run=${n_run:-0} n_pass=${n_pass:-0} n_ignored=${n_ignored:-0}
  n_fail=$((n_run - n_pass))
else
  n_pass=$(sum_results "$log" passed)
  n_fail=$(sum_results "$log" failed)
  n_ignored=$(sum_results "$log" ignored)
fi
n_doc_ignored=0
if [ $heavy = 0 ]; then
  n_pass=$((n_pass + $(sum_results "$doclog" passed)))
  n_fail=$((n_fail + $(sum_results "$doclog" failed)))
  n_doc_ignored=$(sum_results "$doclog" ignored)
fi
# a test that skipped itself passed as far as the runner knows
n_pass=$((n_pass - n_shared - n_tool))
[ $n_pass -ge 0 ] || n_pass=0
# a run that failed before any test ran (a build error) counts one failure
[ $status = 0 ] || [ $n_fail -gt 0 ] || n_fail=1
n_skip=$((n_shared + n_tool + n_ignored + n_doc_ignored))

why=()
if [ "$n_shared" -gt 0 ]; then why+=("../shared missing: $n_shared"); fi
if [ "$n_tool" -gt 0 ]; then
  why+=("a tool missing (python3, git, make or prlimit; npm or its registry for the real clients) or no read-only directory: $n_tool")
fi
# ARGS may leave tests out too (-E): they count here, with the other tier
chosen=""
if [ $# -gt 0 ]; then chosen=" or left out by $*"; fi
if [ "$n_ignored" -gt 0 ] && [ $heavy = 1 ]; then why+=("not in the heavy tier$chosen: $n_ignored"); fi
if [ "$n_ignored" -gt 0 ] && [ $heavy = 0 ]; then
  why+=("heavy tier (scripts/test.sh --heavy)$chosen: $n_ignored")
fi
if [ "$n_doc_ignored" -gt 0 ]; then why+=("doc examples not run: $n_doc_ignored"); fi
echo
if [ "$n_shared" -gt 0 ] && [ $shared_missing = 1 ]; then
  echo "test.sh: put the shared corpus beside the project as ../shared (or set MEM_SHARED_DIR) to run the tests that need it"
fi
if [ ${#why[@]} -gt 0 ]; then
  line="test.sh: skipped: ${why[0]}"
  for w in "${why[@]:1}"; do line+="; $w"; done
  echo "$line"
fi
echo "$n_pass passed, $n_fail failed, $n_skip skipped"
exit $status
