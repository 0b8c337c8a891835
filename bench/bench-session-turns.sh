#!/usr/bin/env bash
# Benchmark the session memory kept turn by turn: `mem-hook` on
# Stop after each turn of a generated session, against one Stop over the
# whole session and against the PreCompact pipeline without earlier Stops
# (what the summary cost when it was made only at compaction).
#
# Usage: bench/bench-session-turns.sh [TURNS=300]
#   Generates TURNS turns of about 8 KB each (a request with a decision, a
#   test run, an answer), appends them one at a time with a Stop after each,
#   then prints:
#   - the Stop's median time over the first and the last 10 turns (flat: it
#     reads only the new lines) and the total;
#   - one Stop over the whole file (the first Stop of a session begun
#     before the hook was installed);
#   - PreCompact (`replay --hook | mem-extract session --hook`) on the whole
#     file without Stops, and after the per-turn Stops;
#   - whether the per-turn summary equals the one-pass one, and the
#     watermark's bytes read against the file size (each byte read once).
# Env: PROFILE (release), CARGO_TARGET_DIR (target), KEEP=1.
set -euo pipefail
cd "$(dirname "$0")/.."
TURNS=${1:-300}
PROFILE=${PROFILE:-release}
TARGET=${CARGO_TARGET_DIR:-target}
OUT=$(mktemp -d /tmp/mem-bench-session-turns.XXXXXX)
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$OUT"' EXIT
if [ "$PROFILE" = release ]; then
  BIN=$(scripts/build-release.sh -q -p mem-transcript -p mem-extract -p mem-hook)
else
  cargo build -q -p mem-transcript -p mem-extract -p mem-hook
  BIN="$PWD/$TARGET/$PROFILE"
fi
python3 - "$BIN" "$OUT" "$TURNS" <<'PY'
import json, os, shutil, statistics, subprocess, sys, time

BIN, OUT, N = sys.argv[1], sys.argv[2], int(sys.argv[3])
SID = "7a11e5ed-1111-4222-8333-944455556666"
PROJ = os.path.join(OUT, "proj")
os.makedirs(PROJ)
FILLER = "the orders service keeps its refund cases in one table " * 90

def turns():
    n, parent = 1, None
    def entry(ty, msg):
        nonlocal n, parent
        msg["role"] = "assistant" if ty == "assistant" else "user"
        uuid = "00000000-0000-4000-8000-%012d" % n
        d = {"parentUuid": parent, "isSidechain": False, "userType": "external",
             "cwd": PROJ, "sessionId": SID, "version": "2.1.39", "type": ty,
             "uuid": uuid, "timestamp": "2026-07-11T09:00:00Z", "message": msg}
        parent, n = uuid, n + 1
        return json.dumps(d) + "\n"
    for t in range(N):
        yield (entry("user", {"content": f"Fix refund case {t}. Never mock the database. {FILLER}"})
               + entry("assistant", {"id": f"m{t}", "content": [{"type": "tool_use", "id": f"tu{t}", "name": "Bash", "input": {"command": f"cargo test refund_{t}"}}]})
               + entry("user", {"content": [{"type": "tool_result", "tool_use_id": f"tu{t}", "content": "ok " * 300, "is_error": False}]})
               + entry("assistant", {"id": f"d{t}", "content": [{"type": "text", "text": "Done. " + FILLER[:800]}]}))

def home(name):
    h = os.path.join(OUT, name)
    os.makedirs(os.path.join(h, ".claude"))
    return h

def env(h):
    e = {k: v for k, v in os.environ.items()
         if not k.startswith(("MEM_", "CLAUDE_", "XDG_"))}
    e.update(HOME=h, CLAUDE_CONFIG_DIR=os.path.join(h, ".claude"),
             XDG_CACHE_HOME=os.path.join(h, "cache"), TZ="UTC")
    return e

def hook(h, event, command):
    inp = json.dumps({"session_id": SID, "transcript_path": os.path.join(h, "t.jsonl"),
                      "cwd": PROJ, "hook_event_name": event, "stop_hook_active": False})
    t = time.perf_counter()
    r = subprocess.run(command, shell=True, input=inp.encode(), env=env(h), capture_output=True)
    d = time.perf_counter() - t
    if r.returncode != 0 or (event == "Stop" and r.stdout):
        sys.exit(f"{event}: {r}")
    return d

STOP = f"'{BIN}/mem-hook'"
PRE = f"'{BIN}/mem-transcript' replay --hook | '{BIN}/mem-extract' session --hook >&2"

def state(h, name):
    for root, _, files in os.walk(os.path.join(h, "cache")):
        if name in files:
            return os.path.join(root, name)

a = home("turns")
times = []
for t in turns():
    with open(os.path.join(a, "t.jsonl"), "a") as f:
        f.write(t)
    times.append(hook(a, "Stop", STOP))
size = os.path.getsize(os.path.join(a, "t.jsonl"))
b = home("one")
shutil.copy(os.path.join(a, "t.jsonl"), os.path.join(b, "t.jsonl"))
one = hook(b, "Stop", STOP)
c = home("compact-only")
shutil.copy(os.path.join(a, "t.jsonl"), os.path.join(c, "t.jsonl"))
pre_alone = hook(c, "PreCompact", PRE)
pre_after = hook(a, "PreCompact", PRE)
same = open(state(a, "session-memory.md")).read() == open(state(b, "session-memory.md")).read()
wm = json.load(open(state(a, "compact.json")))
ms = lambda s: f"{s * 1000:.0f} ms"
print(f"{N} turns, {size / 1e6:.1f} MB ({BIN})")
print(f"Stop per turn: median {ms(statistics.median(times[:10]))} over the first 10, "
      f"{ms(statistics.median(times[-10:]))} over the last 10; {sum(times):.1f} s in all")
print(f"one Stop over the whole file: {ms(one)}")
print(f"PreCompact without Stops: {ms(pre_alone)}; after the per-turn Stops: {ms(pre_after)}")
print(f"summary turn by turn == one pass: {same}; bytes read {wm['bytes_read']} of {size} "
      f"in {wm['reads']} reads")
PY
