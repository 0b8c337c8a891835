#!/usr/bin/env bash
# Run every cargo-fuzz target for SECONDS each (default 60), seeding the
# corpora from ../shared (corpus transcripts, case inputs) and the project's
# hostile fixtures. Needs a nightly toolchain and cargo-fuzz
# (`cargo install cargo-fuzz`). Not part of CI.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#
# Prints, per target, the executions and coverage libFuzzer reports last.
# Crashes land in fuzz/artifacts/<target>/; each becomes a unit test.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
SECS=${1:-60}
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -eq 0 ] && TARGETS=(jsonl_reader frontmatter_roundtrip id_containment scrubber)
SHARED=${MEM_SHARED_DIR:-../../shared}
HOSTILE=../tests/fixtures/hostile
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
# corpora (seeded with copies of outside files) live beside the build, never in the tree
CORPUS=${FUZZ_CORPUS_DIR:-$CARGO_TARGET_DIR/fuzz-corpus}

seed() { # $1 = target: copy small seed files into corpus/<target>
  local dir="$CORPUS/$1"
  mkdir -p "$dir"
  local src=()
  case $1 in
    jsonl_reader) src=("$HOSTILE/transcripts" "$HOSTILE/events" "$HOSTILE/records" "$SHARED/corpus") ;;
    frontmatter_roundtrip) src=("$HOSTILE/topics" "$SHARED/cases") ;;
    id_containment) src=("$HOSTILE/records") ;;
    scrubber) src=("$HOSTILE/records" "$SHARED/cases") ;;
  esac
  local d f n=0
  for d in "${src[@]}"; do
    [ -d "$d" ] || continue
    while IFS= read -r -d '' f; do
      cp "$f" "$dir/seed-$(sha1sum "$f" | cut -c1-16)"
      n=$((n + 1))
    done < <(find "$d" -type f \( -name '*.jsonl' -o -name '*.md' -o -name '*.json' \) -size -64k -print0 | head -z -n 300)
  done
}

for t in "${TARGETS[@]}"; do
  seed "$t"
  log="$CARGO_TARGET_DIR/fuzz-$t.log"
  mkdir -p "$CARGO_TARGET_DIR"
  cargo +nightly fuzz run "$t" "$CORPUS/$t" -- -max_total_time="$SECS" -max_len=65536 -rss_limit_mb=2048 >"$log" 2>&1 || {
    echo "$t: FAILED (see $log and fuzz/artifacts/$t/)"
    tail -30 "$log"
    exit 1
  }
  echo "$t: $(grep -E '^#[0-9]+' "$log" | tail -1)"
done
