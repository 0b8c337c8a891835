#!/usr/bin/env bash
# Benchmark mem-extract: events/s and MB/s over a generated transcript,
# (a) `mem-transcript replay | mem-extract` and (b) `mem-extract` alone on saved events.
# usage: bench/bench-extract.sh [TURNS] [RUNS]   (default 40000 turns, ~160 MB
#   transcript, ~86k events; each timing is the best of RUNS=3)
# Prints wall time and CPU time (user+sys, steadier on a shared machine) with
# events/s and MB/s for replay alone, extract alone on the saved events, and
# replay | extract; extract must not be the slow stage.
# Binaries: $MEM_BIN_DIR (default: built by scripts/build-release.sh)
# MEM_BASE_DIR=DIR  a baseline build (e.g. a previous release) measured in the
#   same run, the two alternating; rows for both and new/base ratios of CPU
#   time. Extract reads the same events file (from $MEM_BIN_DIR's replay).
# INSTRUCTIONS=1    also count instructions of extract alone (valgrind) on the
#   first 20,000 events, for each build: steady on a busy machine.
set -euo pipefail
TURNS=${1:-40000}
RUNS=${2:-3}
BIN=${MEM_BIN_DIR:-$("$(dirname "$0")/../scripts/build-release.sh" -q -p mem-transcript -p mem-extract)}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
python3 - "$TMP/big.jsonl" "$TURNS" <<'PY'
import json, sys
path, turns = sys.argv[1], int(sys.argv[2])
sid = "00000000-0000-4000-8000-00000000bench"
def u(n): return f"11111111-1111-4111-8111-{n:012d}"
out = open(path, "w")
prev = None; n = 0
def w(kind, content, role, mid=None):
    global prev, n
    n += 1
    e = {"type": kind, "uuid": u(n), "parentUuid": prev, "isSidechain": False, "sessionId": sid,
         "cwd": "/home/user/proj", "timestamp": f"2026-07-11T{(n//3600)%24:02d}:{(n//60)%60:02d}:{n%60:02d}Z",
         "message": {"role": role, "content": content}}
    if mid: e["message"]["id"] = mid
    out.write(json.dumps(e) + "\n"); prev = u(n)
texts = ["Please don't mock the database in integration tests.", "Run the tests again.",
         "FYI the runbook is at https://wiki.example.com/ops/runbook", "ok thanks",
         "Deploys need the VPN because the database is internal-only.", "I'm halfway through the router."]
for i in range(turns):
    w("user", texts[i % len(texts)] + " " + "context " * 20, "user")
    w("assistant", [{"type": "tool_use", "id": f"t{i}", "name": "Bash", "input": {"command": f"make step{i%7}"}}], "assistant", f"m{i}")
    w("user", [{"type": "tool_result", "tool_use_id": f"t{i}", "content": ("output line\n" * 150), "is_error": i % 11 == 0}], "user")
    w("assistant", [{"type": "text", "text": "Done. " + "detail " * 60}], "assistant", f"n{i}")
PY
MB=$(echo "$(stat -c %s "$TMP/big.jsonl") / 1000000" | bc -l)
"$BIN/mem-transcript" replay "$TMP/big.jsonl" > "$TMP/events.jsonl"
EV=$(wc -l < "$TMP/events.jsonl")
EMB=$(echo "$(stat -c %s "$TMP/events.jsonl") / 1000000" | bc -l)
# best of RUNS: "wall cpu" in seconds (cpu = user + sys of the command and its children)
t() {
  local best="" line
  for _ in $(seq "$RUNS"); do
    line=$( { /usr/bin/time -f "%e %U %S" bash -c "$1" > /dev/null; } 2>&1 | tail -1)
    line=$(echo "$line" | awk '{printf "%.3f %.3f", $1, $2 + $3}')
    if [ -z "$best" ] || [ "$(echo "$line" | awk -v b="$best" '{split(b, a, " "); print ($2 < a[2])}')" = 1 ]; then
      best=$line
    fi
  done
  echo "$best"
}
run_all() { # BIN -> "R|X|P"
  local b=$1
  echo "$(t "'$b/mem-transcript' replay '$TMP/big.jsonl'")|$(t "'$b/mem-extract' '$TMP/events.jsonl'")|$(t "'$b/mem-transcript' replay '$TMP/big.jsonl' | '$b/mem-extract'")"
}
if [ -n "${MEM_BASE_DIR:-}" ]; then
  # alternate: base, new, base, new; keep each build's best
  best() { # "R|X|P" "R|X|P" -> per stage, the one with less CPU
    paste -d' ' <(echo "$1" | tr '|' '\n') <(echo "$2" | tr '|' '\n') |
      awk '{ if ($2 <= $4) print $1, $2; else print $3, $4 }' | paste -sd'|'
  }
  B1=$(run_all "$MEM_BASE_DIR"); N1=$(run_all "$BIN"); B2=$(run_all "$MEM_BASE_DIR"); N2=$(run_all "$BIN")
  BASE_ROWS=$(best "$B1" "$B2"); NEW_ROWS=$(best "$N1" "$N2")
else
  NEW_ROWS=$(run_all "$BIN")
fi
IFS='|' read -r R X P <<< "$NEW_ROWS"
printf 'transcript %.1f MB, %s events (%.1f MB of events), best of %s runs\n' "$MB" "$EV" "$EMB" "$RUNS"
printf '%-18s %8s %8s %12s %12s %10s %10s\n' stage wall_s cpu_s events/s ev/cpu_s MB/s MB/cpu_s
row() { # name "wall cpu" MB
  set -- "$1" $2 "$3"
  printf '%-18s %8.2f %8.2f %12.0f %12.0f %10.1f %10.1f\n' "$1" "$2" "$3" \
    "$(echo "$EV/$2" | bc -l)" "$(echo "$EV/$3" | bc -l)" "$(echo "$4/$2" | bc -l)" "$(echo "$4/$3" | bc -l)"
}
row "replay alone" "$R" "$MB"
row "extract alone" "$X" "$EMB"
row "replay | extract" "$P" "$MB"
if [ -n "${MEM_BASE_DIR:-}" ]; then
  IFS='|' read -r BR BX BP <<< "$BASE_ROWS"
  row "base replay" "$BR" "$MB"
  row "base extract" "$BX" "$EMB"
  row "base pipeline" "$BP" "$MB"
  ratio() { echo "$1 $2" | awk '{ split($0, a, " "); printf "%.2f", $2 / $4 }'; }
  printf 'new/base CPU: replay %sx, extract %sx, pipeline %sx\n' \
    "$(ratio "$R" "$BR")" "$(ratio "$X" "$BX")" "$(ratio "$P" "$BP")"
fi
echo "(MB/s: of the transcript for replay and the pipeline, of the events for extract)"
if [ "${INSTRUCTIONS:-0}" = 1 ]; then
  command -v valgrind >/dev/null || { echo "INSTRUCTIONS=1 needs valgrind (apt-get install valgrind)" >&2; exit 1; }
  head -n 20000 "$TMP/events.jsonl" > "$TMP/sample.jsonl"
  ir() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$1/mem-extract" "$TMP/sample.jsonl" 2>&1 >/dev/null |
    sed -n 's/.*Collected : *\([0-9]*\).*/\1/p'; }
  NI=$(ir "$BIN"); echo "extract instructions, 20,000 events: new $NI"
  if [ -n "${MEM_BASE_DIR:-}" ]; then
    BI=$(ir "$MEM_BASE_DIR"); echo "extract instructions, 20,000 events: base $BI ($(echo "$NI $BI" | awk '{printf "%.2f", $1/$2}')x)"
  fi
fi
