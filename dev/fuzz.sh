#!/usr/bin/env bash
# Run every cargo-fuzz target for SECONDS each (default 60), seeding the
# corpora from ../shared (corpus transcripts, case inputs, eval sets) and the
# project's hostile fixtures. Needs a nightly toolchain and cargo-fuzz
# (`cargo install cargo-fuzz`); jq for the text seeds taken from sessions.
# Not part of CI.
#
#   dev/fuzz.sh [SECONDS] [TARGET...]
#
# Targets run one after the other (one libFuzzer job). FUZZ_NO_BUILD=1 reuses
# the last build. Prints, per target, the executions, exec/s and coverage
# (`cov`, `ft`) libFuzzer reports last, the coverage at half time and when it
# last grew (a plateau: no growth in the second half). Crashes land in
# fuzz/artifacts/<target>/; each becomes a unit test.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
SECS=${1:-60}
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -eq 0 ] && TARGETS=(jsonl_reader frontmatter_roundtrip id_containment scrubber
  claude_events codex_events relative_dates recall_match)
SHARED=${MEM_SHARED_DIR:-../../shared}
HOSTILE=../tests/fixtures/hostile
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
# corpora (seeded with copies of outside files) live beside the build, never in the tree
CORPUS=${FUZZ_CORPUS_DIR:-$CARGO_TARGET_DIR/fuzz-corpus}
TRIPLE=$(rustc +nightly -vV | sed -n 's/^host: //p')
BIN=$CARGO_TARGET_DIR/$TRIPLE/release

# put FILE [BYTES]: copy (the first BYTES of) a file into $dir under its digest
put() {
  local name
  name=seed-$(head -c "${2:-65536}" "$1" | sha1sum | cut -c1-16)
  [ -e "$dir/$name" ] || head -c "${2:-65536}" "$1" >"$dir/$name"
}

# text SEED: write a seed given as a string
text() {
  local name
  name=seed-$(printf '%s' "$1" | sha1sum | cut -c1-16)
  [ -e "$dir/$name" ] || printf '%s' "$1" >"$dir/$name"
}

# files PATTERN DIR...: transcript-like files under DIRs whose text has PATTERN
files() {
  local pat=$1
  shift
  local d
  for d in "$@"; do
    [ -d "$d" ] && grep -rlZ --include='*.jsonl' --include='*.json' -e "$pat" "$d" 2>/dev/null
  done | head -z -n 300
}

seed() { # $1 = target: copy or write small seed files into corpus/<target>
  dir="$CORPUS/$1"
  mkdir -p "$dir"
  local src=() f d
  case $1 in
    jsonl_reader) src=("$HOSTILE/transcripts" "$HOSTILE/events" "$HOSTILE/records" "$SHARED/corpus") ;;
    frontmatter_roundtrip) src=("$HOSTILE/topics" "$SHARED/cases") ;;
    id_containment) src=("$HOSTILE/records") ;;
    scrubber) src=("$HOSTILE/records" "$SHARED/cases") ;;
    claude_events)
      # sessions (big ones cut to their first 64 KiB: libFuzzer's -max_len)
      while IFS= read -r -d '' f; do put "$f"; done < <(files parentUuid "$HOSTILE/transcripts" \
        "$SHARED/cases" "$SHARED/eval" "$SHARED/corpus")
      return ;;
    codex_events)
      while IFS= read -r -d '' f; do put "$f"; done < <(files session_meta "$HOSTILE/transcripts" \
        "$SHARED/cases" "$SHARED/corpus")
      return ;;
    relative_dates) seed_dates; return ;;
    recall_match) seed_recall; return ;;
  esac
  for d in "${src[@]}"; do
    [ -d "$d" ] || continue
    while IFS= read -r -d '' f; do
      put "$f"
    done < <(find "$d" -type f \( -name '*.jsonl' -o -name '*.md' -o -name '*.json' \) -size -64k -print0 | head -z -n 300)
  done
}

# relative_dates seeds: "BASE-DAY\nTEXT" (see fuzz_targets/relative_dates.rs)
seed_dates() {
  local p b
  for b in 2026-01-15 2026-02-28 2024-02-29 2026-12-31 0001-01-01 9999-12-28; do
    for p in "until Friday" "by tomorrow" "yesterday" "last Friday, next Monday and this Sunday" \
      "next week" "this week" "end of the month" "eom" "eow" "eod" "in 3 days" "in ten days" \
      "the day after tomorrow" "no later than March 3rd" "through 3 March" "until Feb 29" \
      "before 2026-03-03" "up to the end of next month" "thru Sept. 9" "tonight" "coming Wed" \
      "staging is down until Friday (2026-01-16)" "last week we moved; today (2026-01-15) too"; do
      text "$b"$'\n'"$p"
    done
  done
  command -v jq >/dev/null || return 0
  local f
  while IFS= read -r -d '' f; do
    # one seed per message with text: its day, then the text
    jq -j 'select(type == "object") | (.message.content // .content) as $c
      | ($c | if type == "string" then . elif type == "array" then
          (map(select(type == "object") | .text // empty) | join("\n")) else empty end) as $t
      | select($t != "") | "\((.timestamp // "2026-01-15")[0:10])\n\($t[0:2000])\u0000"' "$f" 2>/dev/null |
      while IFS= read -r -d '' p; do text "$p"; done
  done < <(files timestamp "$SHARED/eval/extract" "$SHARED/cases/B29" "$SHARED/cases/B07")
}

# recall_match seeds: the eval tasks against each eval memory's triggers and
# paths (format in fuzz_targets/recall_match.rs)
seed_recall() {
  text $'run cargo nextest on src/lib.rs\ntnextest\ttest runner\ntre:cargo\\s+(nextest|test)\ngsrc/**/*.rs\ngCargo.toml\npsrc/lib.rs\n-another\ntjava\ng*.java\nu'
  text $'deploy to staging over the VPN\nt  VPN \ntre:(unclosed\ntdeploy\ng./deploy/\nbX\n-user memory\nu\ndthe user is a data engineer; supersedes m0'
  text $'修复登录页面\nt登录\ng**/login/*\npweb/login/page.tsx'
  command -v jq >/dev/null || return 0
  local m task tl gl body
  local tasks="$SHARED/eval/recall/tasks.jsonl" mems="$SHARED/eval/recall/memory"
  [ -f "$tasks" ] && [ -d "$mems" ] || return 0
  while IFS= read -r -d '' task; do
    for m in "$mems"/*.md; do
      [ "$(basename "$m")" = MEMORY.md ] && continue
      tl=$(sed -n 's/^triggers: *\[\(.*\)\] *$/\1/p' "$m" | tr ',' '\n' | sed 's/^ *"\{0,1\}/t/; s/"\{0,1\} *$//')
      gl=$(sed -n 's/^paths: *\[\(.*\)\] *$/\1/p' "$m" | tr ',' '\n' | sed 's/^ *"\{0,1\}/g/; s/"\{0,1\} *$//')
      body=$(sed -n '/^---$/,/^---$/!p' "$m" | tr '\n' ' ')
      text "$task"$'\n'"$tl"$'\n'"$gl"$'\n'"d$body"
    done
  done < <(jq -j '"\(.task)\n" + ((.paths // []) | map("p" + . + "\n") | join("")) + "\u0000"' "$tasks")
}

# summary LOG: "execs N (X/s), cov C ft F; cov at half time H, last grew at Ts"
summary() {
  awk -v half=$((SECS / 2)) '
    / cov: / && $2 ~ /^#[0-9]+$/ {
      t = $1; n = substr($2, 2)
      for (i = 3; i < NF; i++) {
        if ($i == "cov:") cov = $(i + 1)
        if ($i == "ft:") ft = $(i + 1)
        if ($i == "exec/s:") eps = $(i + 1)
      }
      if (cov + 0 > max + 0) { max = cov; grew = t }
      if (t <= half) hcov = cov
    }
    END {
      if (n == "") { print "no stats"; exit }
      printf "%d s, execs %d (%s/s), cov %s ft %s; cov at %d s: %s, last grew at %s s%s\n",
        t, n, eps, cov, ft, half, hcov, grew, (grew + 0 <= half ? " (plateau)" : "")
    }' "$1"
}

if [ -z "${FUZZ_NO_BUILD:-}" ]; then
  for t in "${TARGETS[@]}"; do
    cargo +nightly fuzz build "$t" >"$CARGO_TARGET_DIR/fuzz-build.log" 2>&1 || {
      echo "$t: BUILD FAILED (see $CARGO_TARGET_DIR/fuzz-build.log)"
      tail -30 "$CARGO_TARGET_DIR/fuzz-build.log"
      exit 1
    }
  done
fi

# the targets' scratch files: in memory when /dev/shm exists, removed at exit
SCRATCH_IN=/dev/shm
[ -d "$SCRATCH_IN" ] && [ -w "$SCRATCH_IN" ] || SCRATCH_IN=$CARGO_TARGET_DIR
SCRATCH=$(mktemp -d "$SCRATCH_IN/mem-fuzz.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT

failed=0
for t in "${TARGETS[@]}"; do
  seed "$t"
  log="$CARGO_TARGET_DIR/fuzz-$t.log"
  max_len=65536
  case $t in relative_dates | recall_match) max_len=4096 ;; esac
  mkdir -p "artifacts/$t"
  start=$EPOCHSECONDS
  # each line of libFuzzer's output stamped with the seconds since the start
  if TMPDIR=$SCRATCH "$BIN/$t" -artifact_prefix="artifacts/$t/" -max_total_time="$SECS" -max_len="$max_len" \
    -timeout=20 -rss_limit_mb=2048 "$CORPUS/$t" 2>&1 |
    while IFS= read -r l; do printf '%s %s\n' "$((EPOCHSECONDS - start))" "$l"; done >"$log"; then
    echo "$t: $(summary "$log")"
  else
    failed=1
    echo "$t: FAILED after $(summary "$log") (see $log and fuzz/artifacts/$t/)"
    grep -E 'panicked|ERROR|SUMMARY|Test unit written' "$log" | cut -c1-300 | head -8
  fi
done
exit $failed
