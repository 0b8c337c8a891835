#!/usr/bin/env bash
# Benchmark mem-extract: events/s and MB/s over a generated transcript,
# (a) `mem-transcript replay | mem-extract` and (b) `mem-extract` alone on saved events.
# usage: scripts/bench-extract.sh [TURNS]   (default 40000 turns, ~100 MB transcript)
# Binaries: $MEM_BIN_DIR (default target/release); build with
#   cargo build --release -p mem-transcript -p mem-extract
set -euo pipefail
TURNS=${1:-40000}
BIN=${MEM_BIN_DIR:-$(cd "$(dirname "$0")/.." && pwd)/target/release}
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
MB=$(du -m "$TMP/big.jsonl" | cut -f1)
"$BIN/mem-transcript" replay "$TMP/big.jsonl" > "$TMP/events.jsonl"
EV=$(wc -l < "$TMP/events.jsonl")
EMB=$(du -m "$TMP/events.jsonl" | cut -f1)
t() { local s e; s=$(date +%s.%N); "$@" > /dev/null; e=$(date +%s.%N); echo "$e - $s" | bc -l; }
T1=$(t bash -c "'$BIN/mem-transcript' replay '$TMP/big.jsonl' | '$BIN/mem-extract'")
T2=$(t "$BIN/mem-extract" "$TMP/events.jsonl")
T3=$(t bash -c "'$BIN/mem-transcript' replay '$TMP/big.jsonl' > /dev/null")
printf 'transcript %s MB, %s events (%s MB of events)\n' "$MB" "$EV" "$EMB"
printf 'replay alone:          %6.2f s  %8.0f events/s  %6.1f MB/s (transcript)\n' "$T3" "$(echo "$EV/$T3" | bc -l)" "$(echo "$MB/$T3" | bc -l)"
printf 'replay | extract:      %6.2f s  %8.0f events/s  %6.1f MB/s (transcript)\n' "$T1" "$(echo "$EV/$T1" | bc -l)" "$(echo "$MB/$T1" | bc -l)"
printf 'extract (saved events): %5.2f s  %8.0f events/s  %6.1f MB/s (events)\n' "$T2" "$(echo "$EV/$T2" | bc -l)" "$(echo "$EMB/$T2" | bc -l)"
