#!/usr/bin/env bash
# Benchmark mem-transcript replay against jq and cat on one generated transcript.
#
# Usage: scripts/bench-transcript.sh [SIZE_MB=200] [FILE]
#   Generates a realistic session of SIZE_MB (scripts/gen-transcript.py) unless
#   FILE exists, builds the release binary, then times in one run on the same
#   file: replay (events to a file), replay --raw, jq's select, and cat.
#   Uses hyperfine when installed (installed with apt-get when run as root),
#   else bash's `time`. Prints MB/s and ratios.
# Env: CARGO_TARGET_DIR (default target), KEEP=1 keeps the generated file,
#      RSS_MB=1000 also reports the peak RSS of replay on a file of that size.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE_MB=${1:-200}
FILE=${2:-/tmp/mem-bench-${SIZE_MB}mb.jsonl}
TARGET=${CARGO_TARGET_DIR:-target}
OUT=$(mktemp -d /tmp/mem-bench-out.XXXXXX)
trap 'rm -rf "$OUT"' EXIT

cargo build --release -q -p mem-transcript
BIN="$TARGET/release/mem-transcript"

if [ ! -s "$FILE" ]; then
  python3 scripts/gen-transcript.py "$SIZE_MB" "$FILE"
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

declare -A CMDS=(
  [replay]="$BIN replay --format jsonl $FILE > $OUT/events.jsonl"
  [raw]="$BIN replay --raw $FILE > $OUT/raw.jsonl"
  [jq]="jq -c 'select(.type==\"user\" or .type==\"assistant\")' $FILE > $OUT/jq.jsonl"
  [cat]="cat $FILE > /dev/null"
)
ORDER=(replay raw jq cat)
declare -A SECS

if command -v hyperfine >/dev/null; then
  args=()
  for k in "${ORDER[@]}"; do args+=(-n "$k" "${CMDS[$k]}"); done
  # Shell needed for the redirections (no -N).
    hyperfine --warmup 1 --runs "${RUNS:-5}" --export-json "$OUT/h.json" "${args[@]}" >&2
  for k in "${ORDER[@]}"; do
    SECS[$k]=$(python3 -c "import json,sys; r={x['command']:x['mean'] for x in json.load(open('$OUT/h.json'))['results']}; print(r['$k'])")
  done
else
  echo "(hyperfine not installed: one timed run each)" >&2
  for k in "${ORDER[@]}"; do
    s=$(date +%s.%N); bash -c "${CMDS[$k]}"; e=$(date +%s.%N)
    SECS[$k]=$(awk -v s="$s" -v e="$e" 'BEGIN { print e - s }')
  done
fi
printf '%-8s %10s %10s %12s\n' command seconds MB/s "x jq"
for k in "${ORDER[@]}"; do
  awk -v k="$k" -v t="${SECS[$k]}" -v mb="$MB" -v jq="${SECS[jq]}" \
    'BEGIN { printf "%-8s %10.3f %10.0f %12.1f\n", k, t, mb / t, jq / t }'
done
echo "events: $(wc -l < "$OUT/events.jsonl") lines, $(du -m "$OUT/events.jsonl" | cut -f1) MB"

if [ -n "${RSS_MB:-}" ]; then
  BIG=/tmp/mem-bench-rss-${RSS_MB}mb.jsonl
  [ -s "$BIG" ] || python3 scripts/gen-transcript.py "$RSS_MB" "$BIG"
  LONGEST=$(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$BIG")
  /usr/bin/time -v "$BIN" replay --format jsonl "$BIG" 2> "$OUT/time.txt" > /dev/null
  echo "peak RSS on $(du -m "$BIG" | cut -f1) MB: $(grep 'Maximum resident' "$OUT/time.txt" | awk '{print $NF}') KB (longest line $LONGEST chars)"
  [ "${KEEP:-0}" = 1 ] || rm -f "$BIG"
fi
