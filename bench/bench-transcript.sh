#!/usr/bin/env bash
# Benchmark mem-transcript replay against jq and cat on one generated transcript.
#
# Usage: bench/bench-transcript.sh [SIZE_MB=200] [FILE]
#   Generates a realistic session of SIZE_MB (dev/gen-transcript.py) unless
#   FILE exists, builds the release binary, then times in one run on the same
#   file: replay (events to a new file; default threads and -j1), replay --raw,
#   jq's select, and cat. Medians of RUNS runs (default 10).
#   Uses hyperfine when installed (installed with apt-get when run as root),
#   else bash's `time`. Prints MB/s and ratios.
# Env: CARGO_TARGET_DIR (default target), KEEP=1 keeps the generated file,
#      RSS_MB=1000 also reports the peak RSS of replay on a file of that size,
#      CHAIN=5000000 that of a transcript of that many tiny chain entries,
#      BASE_BIN=path/to/mem-transcript also times that binary's replay (a
#      baseline, e.g. the previous release) in the same run, with the ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE_MB=${1:-200}
FILE=${2:-/tmp/mem-bench-${SIZE_MB}mb.jsonl}
OUT=$(mktemp -d /tmp/mem-bench-out.XXXXXX)
trap 'rm -rf "$OUT"' EXIT

BIN="$(scripts/build-release.sh -q -p mem-transcript)/mem-transcript"

if [ ! -s "$FILE" ]; then
  python3 dev/gen-transcript.py "$SIZE_MB" "$FILE"
  [ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$OUT" "$FILE"' EXIT
fi
if ! command -v jq >/dev/null && [ "$(id -u)" = 0 ]; then apt-get install -y -qq jq >/dev/null; fi
if ! command -v hyperfine >/dev/null && [ "$(id -u)" = 0 ]; then
  apt-get install -y -qq hyperfine >/dev/null 2>&1 || true
fi
BYTES=$(stat -c %s "$FILE")
MB=$(awk -v b="$BYTES" 'BEGIN { printf "%.1f", b / 1e6 }')
echo "file: $FILE ($MB MB)"
cat "$FILE" >/dev/null   # warm the page cache

# Each command writes to a fresh file (--prepare removes the last one), so
# the time is the command's, not the shell's truncation of the last output.
declare -A CMDS=(
  [replay]="$BIN replay --format jsonl $FILE > $OUT/events.jsonl"
  [replay-j1]="$BIN -j1 replay --format jsonl $FILE > $OUT/events-j1.jsonl"
  [raw]="$BIN replay --raw $FILE > $OUT/raw.jsonl"
  [jq]="jq -c 'select(.type==\"user\" or .type==\"assistant\")' $FILE > $OUT/jq.jsonl"
  [cat]="cat $FILE > /dev/null"
)
ORDER=(replay replay-j1 raw jq cat)
if [ -n "${BASE_BIN:-}" ]; then
  CMDS[base]="$BASE_BIN replay --format jsonl $FILE > $OUT/base.jsonl"
  ORDER=(replay base replay-j1 raw jq cat)
fi
declare -A SECS

if command -v hyperfine >/dev/null; then
  args=()
  for k in "${ORDER[@]}"; do args+=(-n "$k" "${CMDS[$k]}"); done
  # Shell needed for the redirections (no -N). Median of the runs.
  hyperfine --warmup 1 --runs "${RUNS:-10}" --prepare "rm -f $OUT/*.jsonl" \
    --export-json "$OUT/h.json" "${args[@]}" >&2
  for k in "${ORDER[@]}"; do
    SECS[$k]=$(python3 -c "import json,sys; r={x['command']:x['median'] for x in json.load(open('$OUT/h.json'))['results']}; print(r['$k'])")
  done
else
  echo "(hyperfine not installed: one timed run each)" >&2
  for k in "${ORDER[@]}"; do
    rm -f "$OUT"/*.jsonl
    s=$(date +%s.%N); bash -c "${CMDS[$k]}"; e=$(date +%s.%N)
    SECS[$k]=$(awk -v s="$s" -v e="$e" 'BEGIN { print e - s }')
  done
fi
echo "CPUs: $(nproc) (replay uses as many threads, at most 4; replay-j1 one)"
printf '%-10s %10s %10s %12s %10s\n' command seconds MB/s "x jq" "x cat"
for k in "${ORDER[@]}"; do
  awk -v k="$k" -v t="${SECS[$k]}" -v mb="$MB" -v jq="${SECS[jq]}" -v c="${SECS[cat]}" \
    'BEGIN { printf "%-10s %10.3f %10.0f %12.1f %10.1f\n", k, t, mb / t, jq / t, t / c }'
done
if [ -n "${BASE_BIN:-}" ]; then
  awk -v a="${SECS[replay]}" -v b="${SECS[base]}" 'BEGIN { printf "replay / base: %.2f (below 1: faster than the baseline)\n", a / b }'
fi
"$BIN" replay --format jsonl "$FILE" > "$OUT/events.jsonl"
echo "events: $(wc -l < "$OUT/events.jsonl") lines, $(du -m "$OUT/events.jsonl" | cut -f1) MB"

if [ -n "${RSS_MB:-}" ]; then
  BIG=/tmp/mem-bench-rss-${RSS_MB}mb.jsonl
  [ -s "$BIG" ] || python3 dev/gen-transcript.py "$RSS_MB" "$BIG"
  LONGEST=$(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$BIG")
  for j in 1 4; do
    /usr/bin/time -v "$BIN" -j$j replay --format jsonl "$BIG" 2> "$OUT/time.txt" > /dev/null
    echo "peak RSS on $(du -m "$BIG" | cut -f1) MB, -j$j: $(grep 'Maximum resident' "$OUT/time.txt" | awk '{print $NF}') KB (longest line $LONGEST chars)"
  done
  [ "${KEEP:-0}" = 1 ] || rm -f "$BIG"
fi

if [ -n "${CHAIN:-}" ]; then
  TINY=/tmp/mem-bench-chain-${CHAIN}.jsonl
  [ -s "$TINY" ] || python3 dev/gen-transcript.py --chain "$CHAIN" "$TINY"
  for j in 1 2; do
    for b in "$BIN" ${BASE_BIN:-}; do
      /usr/bin/time -v "$b" -j$j replay --format jsonl "$TINY" 2> "$OUT/time.txt" > /dev/null
      echo "peak RSS on $CHAIN tiny chain entries ($(du -m "$TINY" | cut -f1) MB), -j$j, $b: $(grep 'Maximum resident' "$OUT/time.txt" | awk '{print $NF}') KB"
    done
  done
  [ "${KEEP:-0}" = 1 ] || rm -f "$TINY"
fi
