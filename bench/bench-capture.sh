#!/usr/bin/env bash
# Benchmark per-turn capture: the Stop hook's write path on a large session,
# against a full replay of the same session through the same pipeline.
#
# Usage: bench/bench-capture.sh [SIZE_MB=200] [FILE]
#   Generates a realistic session of SIZE_MB (dev/gen-transcript.py) unless
#   FILE exists (copied: turns are appended to the copy), builds the binaries,
#   then in one run:
#   - full:  `mem-transcript replay FILE | mem-extract | mem-index write`
#            (what a hook did before the watermark), median of RUNS (3);
#   - first: the first Stop hook on the session (no watermark yet: reads all);
#   - turn:  TURNS (100) turns appended one at a time, the Stop hook
#            (`replay --hook | mem-extract | mem-index write`) after each;
#            the 100th and the median;
#   - the transcript stage alone: `replay --hook` on one more turn against a
#     full `replay` of the file.
#   Prints seconds and the ratios.
# Env: PROFILE (release), CARGO_TARGET_DIR (target), RUNS, TURNS, KEEP=1.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE_MB=${1:-200}
SRC=${2:-/tmp/mem-bench-${SIZE_MB}mb.jsonl}
PROFILE=${PROFILE:-release}
TARGET=${CARGO_TARGET_DIR:-target}
RUNS=${RUNS:-3}
TURNS=${TURNS:-100}
OUT=$(mktemp -d /tmp/mem-bench-capture.XXXXXX)
trap 'rm -rf "$OUT"' EXIT

if [ "$PROFILE" = release ]; then
  BIN=$(scripts/build-release.sh -q -p mem-transcript -p mem-extract -p mem-index)
else
  cargo build -q -p mem-transcript -p mem-extract -p mem-index
  BIN="$PWD/$TARGET/$PROFILE"
fi
if [ ! -s "$SRC" ]; then
  python3 dev/gen-transcript.py "$SIZE_MB" "$SRC"
  [ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$OUT" "$SRC"' EXIT
fi
FILE="$OUT/session.jsonl"
cp "$SRC" "$FILE"
mkdir -p "$OUT/proj"
export MEM_MEMORY_DIR="$OUT/mem" XDG_CACHE_HOME="$OUT/cache"
SID=$(head -c 100000 "$FILE" | grep -o '"sessionId":"[^"]*"' | head -1 | cut -d'"' -f4)
MB=$(awk -v b="$(stat -c %s "$FILE")" 'BEGIN { printf "%.1f", b / 1e6 }')
echo "file: $FILE ($MB MB), session $SID, binaries: $PROFILE"
cat "$FILE" >/dev/null   # warm the page cache

now() { date +%s.%N; }
secs() { awk -v s="$1" -v e="$2" 'BEGIN { printf "%.4f\n", e - s }'; }
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

hook_json() {
  printf '{"session_id":"%s","transcript_path":"%s","cwd":"%s","hook_event_name":"Stop","stop_hook_active":false}' \
    "$SID" "$FILE" "$OUT/proj"
}
stop_hook() {
  hook_json | (cd "$OUT/proj" && "$BIN/mem-transcript" replay --hook 2>>"$OUT/stderr" \
    | "$BIN/mem-extract" 2>>"$OUT/stderr" | "$BIN/mem-index" write >/dev/null 2>>"$OUT/stderr")
}

# full replay through the pipeline (a fresh memory dir each run)
: > "$OUT/full.txt"
for _ in $(seq "$RUNS"); do
  rm -rf "$OUT/mem"
  s=$(now)
  (cd "$OUT/proj" && "$BIN/mem-transcript" replay "$FILE" | "$BIN/mem-extract" 2>/dev/null \
    | "$BIN/mem-index" write >/dev/null 2>&1)
  e=$(now)
  secs "$s" "$e" >> "$OUT/full.txt"
done
FULL=$(median < "$OUT/full.txt")
rm -rf "$OUT/mem"

s=$(now); stop_hook; e=$(now)
FIRST=$(secs "$s" "$e")

# append a turn (user, tool call, result, answer) on the chain's leaf
append_turn() {
  python3 - "$FILE" "$OUT/leaf" "$1" "$SID" <<'EOF'
import json, sys, uuid
path, leaf_file, n, sid = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
try:
    parent = open(leaf_file).read().strip()
except FileNotFoundError:
    # the chain's leaf as the first Stop recorded it
    import glob
    cap = glob.glob(path.rsplit("/", 1)[0] + "/cache/mem/*/sessions/*/capture.json")
    parent = json.load(open(cap[0]))["last_uuid"]
lines = []
def add(ty, content, msg=None):
    global parent
    u = str(uuid.uuid4())
    m = {"role": "assistant" if ty == "assistant" else "user", "content": content}
    if msg:
        m["id"] = msg
    ts = "2027-06-01T%02d:%02d:%02d.000Z" % (n // 3600 % 24, n // 60 % 60, n % 60)
    lines.append(json.dumps({"type": ty, "uuid": u, "parentUuid": parent, "sessionId": sid,
        "timestamp": ts, "cwd": "/home/user/proj", "isSidechain": False, "message": m}))
    parent = u
tid = "toolu_bench_%d" % n
add("user", "Turn %d: always run cargo fmt before committing, never push to main." % n)
add("assistant", [{"type": "tool_use", "id": tid, "name": "Bash", "input": {"command": "cargo test -p x%d" % n}}], "msg_b%da" % n)
add("user", [{"type": "tool_result", "tool_use_id": tid, "content": "test result: ok. 3 passed"}])
add("assistant", [{"type": "text", "text": "Done with turn %d." % n}], "msg_b%db" % n)
with open(path, "a") as f:
    f.write("\n".join(lines) + "\n")
open(leaf_file, "w").write(parent)
EOF
}

: > "$OUT/turns.txt"
for t in $(seq "$TURNS"); do
  append_turn "$t"
  s=$(now); stop_hook; e=$(now)
  secs "$s" "$e" >> "$OUT/turns.txt"
done
# the transcript stage alone: one more turn through `replay --hook`, and a
# full `replay` of the same file
append_turn "$((TURNS + 1))"
s=$(now); hook_json | (cd "$OUT/proj" && "$BIN/mem-transcript" replay --hook > "$OUT/ev.jsonl" 2>>"$OUT/stderr"); e=$(now)
RHOOK=$(secs "$s" "$e")
s=$(now); "$BIN/mem-transcript" replay "$FILE" > "$OUT/ev-full.jsonl"; e=$(now)
RFULL=$(secs "$s" "$e")
LAST=$(tail -1 "$OUT/turns.txt")
MED=$(median < "$OUT/turns.txt")
CAP=$(find "$OUT/cache" -name capture.json | head -1)
echo "watermark after $TURNS turns: $(python3 -c "import json;w=json.load(open('$CAP'));print('reads',w['reads'],'turns',w['turns'],'bytes_read',w['bytes_read'],'offset',w['offset'])")"
printf '%-28s %10s %12s\n' what seconds "x turn $TURNS"
for row in "full replay pipeline:$FULL" "first Stop (no watermark):$FIRST" "Stop, turn $TURNS:$LAST" "Stop, median of $TURNS:$MED"; do
  k=${row%%:*}; v=${row##*:}
  awk -v k="$k" -v v="$v" -v l="$LAST" 'BEGIN { printf "%-28s %10.4f %12.1f\n", k, v, v / l }'
done
echo "transcript stage alone: replay --hook (one turn) $RHOOK s ($(wc -l < "$OUT/ev.jsonl") events)," \
  "full replay $RFULL s ($(wc -l < "$OUT/ev-full.jsonl") events): $(awk -v a="$RFULL" -v b="$RHOOK" 'BEGIN { printf "%.0f", a / b }')x"
