#!/usr/bin/env bash
# Latency of `mem-recall --hook` per event on a generated memory directory of
# N memories (default 200: 170 feedback/project memories with triggers, 10
# `type: user`, 20 lessons "run X before Y" / "use X′ instead of X"), against
# a baseline in the same run (`cat` reading the same hook JSON: the cost of
# starting a process). Whole-process wall time, as the agent waits for it.
#
#   SessionStart       startup, each run a session that injected nothing yet
#   UserPromptSubmit   a prompt recalling ~10 memories, same (state removed)
#   PreToolUse         `npm test`, matching a lesson; the session's transcript
#                      (1 MiB) already read (steady state: only new bytes)
#   PreToolUse-cold    the same with the session state removed before each
#                      run: the whole transcript is read
#   PreToolUse-nomatch `ls -la`: no lesson bears on it
#   Stop               the write path (mem-transcript replay --hook |
#                      mem-extract | mem-index write), when those tools are
#                      built beside BIN
#
# Prints wall-time median and p95 (ms) per event, the mean CPU time (user +
# system, less moved by other load on the machine) and the median's excess
# over the baseline. Needs hyperfine (else farm-bench, medians only). Every command,
# the baseline too, runs as `sh -c 'exec CMD <input.json'` (hyperfine 1.15
# has no --input), so the shell's start-up is in both.
#
# Usage: scripts/bench-hooks.sh [N]          (release build of mem-recall)
#        BIN=target/debug/mem-recall scripts/bench-hooks.sh   (another binary)
#        RUNS=200 scripts/bench-hooks.sh
#        BASE_BIN=/path/to/old/mem-recall scripts/bench-hooks.sh
#            also runs SessionStart, UserPromptSubmit and the PreToolUse
#            events with that binary (its own cache folder), in the same
#            run, and prints the ratio of the medians new/base per event
#        INSTRUCTIONS=1  also counts user-space instructions per event
#            (perf stat, else callgrind; one run each, state as in the bench)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-200}
runs=${RUNS:-100}
if [ -z "${BIN:-}" ]; then
  cargo build --release -p mem-recall >&2
  BIN="${CARGO_TARGET_DIR:-target}/release/mem-recall"
fi
BIN=$(realpath "$BIN")
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
export HOME="$work/home" XDG_CACHE_HOME="$work/cache" CLAUDE_CONFIG_DIR="$work/home/.claude"
unset MEM_DISABLE CLAUDE_CODE_DISABLE_AUTO_MEMORY MEM_REMOTE CLAUDE_CODE_REMOTE MEM_NOW MEM_TODAY MEM_HOOK_GUARD
mkdir -p "$HOME/.claude" "$work/proj"
export MEM_MEMORY_DIR="$work/memory"

python3 - "$MEM_MEMORY_DIR" "$n" "$work" <<'PY'
import json, os, random, sys
d, n, work = sys.argv[1], int(sys.argv[2]), sys.argv[3]
os.makedirs(d, exist_ok=True)
rnd = random.Random(7)
nouns = ("build deploy cache fixture token schema index queue worker mirror proxy lint "
         "bench release docs api cli config secret migration payments grafana").split()
users, lessons = 10, 20
def write(name, front, body):
    with open(os.path.join(d, name + ".md"), "w") as f:
        f.write("---\n" + "".join(f"{k}: {v}\n" for k, v in front) + "---\n" + body + "\n")
index = []
for i in range(n):
    name = f"m{i:04d}"
    if i < users:
        write(name, [("name", f'"User note {i}"'), ("description", f'"The user prefers style {i}"'),
                     ("type", "user")], f"The user prefers answer style {i}.")
    elif i < users + lessons:
        a, b = rnd.sample(nouns, 2)
        if i % 2:
            body = (f"Fact: Run `npm run {a}{i}` before `npm test`.\n"
                    f"How to use: Before running `npm test`, run `npm run {a}{i}`.")
            desc = f'"npm test failed until npm run {a}{i} ran"'
        else:
            body = (f"Fact: Run `make {a}{i}`, not `make {b}{i}`.\n"
                    f"How to use: Where you would run `make {b}{i}`, run `make {a}{i}`.")
            desc = f'"make {b}{i} fails here; make {a}{i} works"'
        write(name, [("name", f'"Lesson {i}"'), ("description", desc), ("type", "feedback"),
                     ("kind", "durable-lesson"), ("triggers", f'["npm test", "{a}"]')], body)
    else:
        a, b, c = rnd.sample(nouns, 3)
        write(name, [("name", f'"{a} {b} note {i}"'), ("description", f'"Always check {a} before {b} in {c}"'),
                     ("type", rnd.choice(["feedback", "project"])), ("triggers", f'["{a}"]')],
              f"Fact: the {a} step {i} must precede {b} because {c} reads its output.\nWhy: seen in session {i}.")
    index.append(f"- [{name}]({name}.md) - note {i}")
open(os.path.join(d, "MEMORY.md"), "w").write("\n".join(index[:150]) + "\n")
# a 1 MiB transcript of Bash tool calls (none is a lesson's X)
t = os.path.join(work, "session.jsonl")
with open(t, "w") as f:
    i = 0
    while f.tell() < (1 << 20):
        cmd = f"ls -la src/{rnd.choice(nouns)}/{i}"
        f.write(json.dumps({"type": "assistant", "uuid": f"a{i}", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": f"toolu_{i}", "name": "Bash", "input": {"command": cmd}}]}},
            separators=(",", ":")) + "\n")
        i += 1
proj = os.path.join(work, "proj")
def hook(name, **kw):
    file = kw.pop("_file", name)
    v = {"session_id": "bench-session", "transcript_path": t, "cwd": proj, "hook_event_name": name}
    v.update(kw)
    open(os.path.join(work, file + ".json"), "w").write(json.dumps(v))
hook("SessionStart", source="startup")
hook("UserPromptSubmit", prompt="fix the deploy of the api cache and check the grafana latency of the proxy worker")
hook("PreToolUse", tool_name="Bash", tool_input={"command": "npm test -- --ci"}, tool_use_id="toolu_x")
hook("PreToolUse", tool_name="Bash", tool_input={"command": "ls -la"}, tool_use_id="toolu_y", _file="PreToolUse-nomatch")
hook("Stop", stop_hook_active=False, last_assistant_message="Done.")
PY
cp "$work/PreToolUse.json" "$work/PreToolUse-cold.json"

# sanity: each event answers as expected
for ev in SessionStart UserPromptSubmit PreToolUse; do
  out=$("$BIN" --hook <"$work/$ev.json" 2>"$work/err.txt")
  [ -n "$out" ] || { echo "$ev printed nothing:" >&2; cat "$work/err.txt" >&2; exit 1; }
done
clear_state="sh -c 'rm -rf $XDG_CACHE_HOME/mem/*/sessions $work/cache-base/mem/*/sessions'"
if [ -n "${BASE_BIN:-}" ]; then
  BASE_BIN=$(realpath "$BASE_BIN")
  # the base keeps its own cache (another layout version would be rewritten
  # by each binary in turn)
  XDG_CACHE_HOME="$work/cache-base" "$BASE_BIN" --hook <"$work/UserPromptSubmit.json" >/dev/null 2>&1 || true
fi

echo "mem-recall --hook latency, $n memories, $runs runs each; $(date -u +%FT%TZ), $(nproc) cores; $BIN"
if command -v hyperfine >/dev/null; then
  bench() { # bench LABEL INPUT PREPARE CMD [ENV-ASSIGNMENT]
    # `sh -c 'exec CMD <file'` for the redirection, the baseline likewise:
    # the shell's start-up is in both
    hyperfine -N --style none --warmup 5 --runs "$runs" \
      ${3:+--prepare "$3"} --export-json "$work/$1.out.json" "sh -c '${5:+$5 }exec $4 <$work/$2.json'" >/dev/null 2>&1
    python3 - "$work/$1.out.json" "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
t = sorted(r["times"])
med = t[len(t) // 2] * 1000
p95 = t[min(len(t) - 1, int(len(t) * 0.95))] * 1000
cpu = (r["user"] + r["system"]) * 1000
open(sys.argv[1] + ".med", "w").write(f"{med}")
print(f"{sys.argv[2]:<20} median {med:7.2f} ms   p95 {p95:7.2f} ms   cpu (user+sys, mean) {cpu:6.2f} ms")
PY
  }
  bench baseline-cat PreToolUse "" "cat"
  bench SessionStart SessionStart "$clear_state" "$BIN --hook"
  bench UserPromptSubmit UserPromptSubmit "$clear_state" "$BIN --hook"
  bench PreToolUse PreToolUse "" "$BIN --hook"
  bench PreToolUse-cold PreToolUse-cold "$clear_state" "$BIN --hook"
  bench PreToolUse-nomatch PreToolUse-nomatch "" "$BIN --hook"
  evs="SessionStart UserPromptSubmit PreToolUse PreToolUse-cold PreToolUse-nomatch"
  if [ -n "${BASE_BIN:-}" ]; then
    bench base-SessionStart SessionStart "$clear_state" "$BASE_BIN --hook" "XDG_CACHE_HOME=$work/cache-base"
    bench base-UserPromptSubmit UserPromptSubmit "$clear_state" "$BASE_BIN --hook" "XDG_CACHE_HOME=$work/cache-base"
    bench base-PreToolUse PreToolUse "" "$BASE_BIN --hook" "XDG_CACHE_HOME=$work/cache-base"
    bench base-PreToolUse-nomatch PreToolUse-nomatch "" "$BASE_BIN --hook" "XDG_CACHE_HOME=$work/cache-base"
    for ev in SessionStart UserPromptSubmit PreToolUse PreToolUse-nomatch; do
      python3 -c "import sys; m=float(open('$work/$ev.out.json.med').read()); b=float(open('$work/base-$ev.out.json.med').read()); print(f'{\"$ev\":<20} new/base {m/b:5.2f}x  ({m:.2f} ms / {b:.2f} ms, medians of the same run)')"
    done
  fi
  if [ "${INSTRUCTIONS:-0}" = 1 ]; then
    instr() { # INPUT CMD... -> user-space instructions, or "-"
      local in=$1 n=-; shift
      if command -v perf >/dev/null 2>&1; then
        n=$(perf stat -x, -e instructions:u "$@" <"$in" 2>&1 >/dev/null | awk -F, '/instructions/ {print $1}')
      fi
      if ! [[ "$n" =~ ^[0-9]+$ ]] && command -v valgrind >/dev/null 2>&1; then
        n=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" <"$in" 2>&1 >/dev/null | awk '/Collected :/ {print $NF}')
      fi
      [[ "$n" =~ ^[0-9]+$ ]] || n=-
      echo "$n"
    }
    for ev in SessionStart UserPromptSubmit PreToolUse PreToolUse-nomatch; do
      sh -c "rm -rf $XDG_CACHE_HOME/mem/*/sessions $work/cache-base/mem/*/sessions"
      line="$ev instructions: $(instr "$work/$ev.json" "$BIN" --hook)"
      if [ -n "${BASE_BIN:-}" ]; then
        line+=", base $(XDG_CACHE_HOME="$work/cache-base" instr "$work/$ev.json" "$BASE_BIN" --hook)"
      fi
      echo "$line"
    done
  fi
  # Stop: the write path the hook runs (mem_core::hooks::WRITE_PATH) with the
  # tools beside BIN, when they are built; steady state (the turn's
  # watermark already past the transcript)
  bd=$(dirname "$BIN")
  if [ -x "$bd/mem-transcript" ] && [ -x "$bd/mem-extract" ] && [ -x "$bd/mem-index" ]; then
    stop="sh -c '$bd/mem-transcript replay --hook <$work/Stop.json | $bd/mem-extract | $bd/mem-index write >&2'"
    hyperfine -N --style none --warmup 5 --runs "$runs" --export-json "$work/Stop.out.json" "$stop" >/dev/null 2>&1
    bench_print() { python3 - "$work/Stop.out.json" Stop <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
t = sorted(r["times"])
med = t[len(t) // 2] * 1000
p95 = t[min(len(t) - 1, int(len(t) * 0.95))] * 1000
cpu = (r["user"] + r["system"]) * 1000
open(sys.argv[1] + ".med", "w").write(f"{med}")
print(f"{sys.argv[2]:<20} median {med:7.2f} ms   p95 {p95:7.2f} ms   cpu (user+sys, mean) {cpu:6.2f} ms")
PY
    }
    bench_print
    evs="$evs Stop"
  else
    echo "Stop: mem-transcript, mem-extract, mem-index not built beside $BIN; not measured"
  fi
  base=$(cat "$work/baseline-cat.out.json.med")
  for ev in $evs; do
    python3 -c "import sys; m=float(open('$work/$ev.out.json.med').read()); b=$base; print(f'{\"$ev\":<20} over baseline {m-b:6.2f} ms  (x{m/b:.1f})')"
  done
else
  for ev in SessionStart UserPromptSubmit PreToolUse PreToolUse-nomatch; do
    echo "== $ev (vs cat)"
    farm-bench -n 30 --vs "sh -c 'exec cat <$work/$ev.json >/dev/null'" -- \
      sh -c "exec $BIN --hook <$work/$ev.json >/dev/null 2>&1"
  done
fi
