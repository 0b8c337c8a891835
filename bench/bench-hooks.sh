#!/usr/bin/env bash
# Latency of mem's hooks per event on a generated memory directory of N
# memories (default 200: 170 feedback/project memories with triggers, 10
# `type: user`, 20 lessons "run X before Y" / "use X′ instead of X"), each
# event paired run by run with a baseline: `cat` reading the same hook JSON
# (the cost of starting a process and reading stdin). Whole-process wall
# time, as the agent waits for it.
#
#   SessionStart       startup, each run a session that injected nothing yet
#   UserPromptSubmit   a prompt recalling ~10 memories, same (state removed)
#   PreToolUse         `npm test`, matching a lesson; the session's transcript
#                      (1 MiB) already read (steady state: only new bytes)
#   PreToolUse-cold    the same with the session state removed before each
#                      run: the whole transcript is read
#   PreToolUse-nomatch `ls -la`: no lesson bears on it
#   Stop               the write path of one turn (mem-transcript replay
#                      --hook | mem-extract | mem-index write): before each
#                      run one new turn is appended to a 1 MiB session whose
#                      earlier turns were captured; when those tools are
#                      built beside BIN
#
# Runs alternate (event, cat, cat, event, …) so both see the same machine;
# the added latency of an event is the difference event − cat of each pair
# (its median and p95), which holds on a loaded machine where absolute
# times drift. Prints per event: wall median and p95 (ms), mean CPU (user +
# system), the same for `cat`, the paired wall difference (median, p95) and
# ratio, and the CPU difference. On a loaded machine wall times are mostly
# waiting for a processor; the CPU difference is the work the hook adds.
# Needs python3 only.
#
# Usage: bench/bench-hooks.sh [N]          (release build of the tools)
#        BIN=target/debug/mem-hook bench/bench-hooks.sh   (another binary)
#        RUNS=200 STOP_RUNS=30 bench/bench-hooks.sh
#        WORK=/tmp/hb bench/bench-hooks.sh   (keep the memory dir and inputs)
#        BASE_BIN=/path/to/old/mem-hook bench/bench-hooks.sh
#            (a mem-recall of a version before mem-hook runs as
#            `mem-recall --hook`)
#            each hook event also runs with that binary (its own cache
#            folder), in the same loop (event, cat, base, rotated), and a
#            second table gives per event both medians and new/base: the
#            ratio of the medians and the median of the per-run ratios
#        INSTRUCTIONS=1 bench/bench-hooks.sh
#            also counts each hook event's instructions (valgrind
#            --tool=callgrind, one run, state as in the benchmark; with
#            BASE_BIN the base's too)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-200}
runs=${RUNS:-100}
stop_runs=${STOP_RUNS:-30}
if [ -z "${BIN:-}" ]; then
  BIN="$(scripts/build-release.sh -p mem-hook -p mem-transcript -p mem-extract -p mem-index --bins)/mem-hook"
fi
BIN=$(realpath "$BIN")
if [ -n "${WORK:-}" ]; then  # kept afterwards (inputs for other tools)
  work=$(realpath -m "$WORK"); rm -rf "$work"; mkdir -p "$work"
else
  work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fi
export HOME="$work/home" XDG_CACHE_HOME="$work/cache" CLAUDE_CONFIG_DIR="$work/home/.claude"
unset MEM_DISABLE CLAUDE_CODE_DISABLE_AUTO_MEMORY MEM_REMOTE CLAUDE_CODE_REMOTE MEM_NOW MEM_TODAY MEM_HOOK_GUARD
mkdir -p "$HOME/.claude" "$work/proj"
base_bin=
if [ -n "${BASE_BIN:-}" ]; then base_bin=$(realpath "$BASE_BIN"); fi
export MEM_MEMORY_DIR="$work/memory"
# PreToolUse: the lesson answers on every run (by default it stops a command
# once a session and is silent after: the runs would time the silent path)
export MEM_LESSONS=remind

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
# a 1 MiB Claude Code session for Stop (a uuid chain; turns of a prompt, a
# Bash call, its result and an answer); the benchmark appends turns to it
# with the same function (turn.py)
TURN = f"""import json, random
nouns, proj, rnd = {nouns!r}, {proj!r}, random.Random(11)
def turn(f, k, parent):
    ids = [f"00000000-0000-4000-8000-{{k * 4 + j:012d}}" for j in range(4)]
    noun = rnd.choice(nouns)
    msgs = [("user", {{"role": "user", "content": f"Please check the {{noun}} step of module {{k}} and fix what fails."}}),
            ("assistant", {{"id": f"msg_{{k}}a", "role": "assistant", "content": [
                {{"type": "tool_use", "id": f"toolu_s{{k}}", "name": "Bash", "input": {{"command": f"make {{noun}} MODULE={{k}}"}}}}]}}),
            ("user", {{"role": "user", "content": [
                {{"type": "tool_result", "tool_use_id": f"toolu_s{{k}}", "content": f"{{noun}}: module {{k}} ok", "is_error": False}}]}}),
            ("assistant", {{"id": f"msg_{{k}}b", "role": "assistant", "content": [
                {{"type": "text", "text": f"The {{noun}} step of module {{k}} passes."}}]}})]
    for (kind, m), u in zip(msgs, ids):
        f.write(json.dumps({{"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": proj,
                            "sessionId": "bench-stop", "version": "2.1.200", "type": kind, "uuid": u,
                            "timestamp": f"2026-07-14T{{k // 3600 % 24:02d}}:{{k // 60 % 60:02d}}:{{k % 60:02d}}Z",
                            "message": m}}, separators=(",", ":")) + "\\n")
        parent = u
    return parent
"""
open(os.path.join(work, "turn.py"), "w").write(TURN)
exec(TURN)
st = os.path.join(work, "stop-session.jsonl")
with open(st, "w") as f:
    k, parent = 0, None
    while f.tell() < (1 << 20):
        parent = turn(f, k, parent)
        k += 1
json.dump({"next": k, "parent": parent, "path": st}, open(os.path.join(work, "stop-state.json"), "w"))
def hook(name, **kw):
    file = kw.pop("_file", name)
    v = {"session_id": "bench-session", "transcript_path": t, "cwd": proj, "hook_event_name": name}
    v.update(kw)
    open(os.path.join(work, file + ".json"), "w").write(json.dumps(v))
hook("SessionStart", source="startup")
hook("UserPromptSubmit", prompt="fix the deploy of the api cache and check the grafana latency of the proxy worker")
hook("PreToolUse", tool_name="Bash", tool_input={"command": "npm test -- --ci"}, tool_use_id="toolu_x")
hook("PreToolUse", tool_name="Bash", tool_input={"command": "ls -la"}, tool_use_id="toolu_y", _file="PreToolUse-nomatch")
hook("Stop", stop_hook_active=False, last_assistant_message="Done.", session_id="bench-stop", transcript_path=st)
PY
cp "$work/PreToolUse.json" "$work/PreToolUse-cold.json"

# sanity: each event answers as expected
for ev in SessionStart UserPromptSubmit PreToolUse; do
  out=$("$BIN" <"$work/$ev.json" 2>"$work/err.txt")
  [ -n "$out" ] || { echo "$ev printed nothing:" >&2; cat "$work/err.txt" >&2; exit 1; }
done
echo "mem hooks latency, $n memories, $runs runs each (Stop: $stop_runs); $(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg); $BIN${base_bin:+ (base $base_bin)}"
bd=$(dirname "$BIN")
python3 - "$work" "$BIN" "$runs" "$stop_runs" "$bd" "$base_bin" "${INSTRUCTIONS:-0}" <<'PY'
import glob, json, os, random, shutil, statistics, subprocess, sys, time
work, BIN, runs, stop_runs, bd = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
BASE, instructions = sys.argv[6] or None, sys.argv[7] == "1"
# the base binary keeps its own cache folder (another cache layout would be
# rewritten by each binary in turn)
base_env = dict(os.environ, XDG_CACHE_HOME=os.path.join(work, "cache-base"))
devnull = os.open(os.devnull, os.O_WRONLY)
cat = shutil.which("cat")

def once(argv, stdin_path, env=None):
    """Wall ms, CPU ms (user + system of the process and what it waited for)."""
    fd = os.open(stdin_path, os.O_RDONLY)
    acts = [(os.POSIX_SPAWN_DUP2, fd, 0), (os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)]
    t0 = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, env or os.environ, file_actions=acts)
    _, status, ru = os.wait4(pid, 0)
    t1 = time.perf_counter()
    os.close(fd)
    if status != 0:
        sys.exit(f"{argv} exited {status}")
    return (t1 - t0) * 1000, (ru.ru_utime + ru.ru_stime) * 1000

def clear_state():
    for c in (os.environ["XDG_CACHE_HOME"], base_env["XDG_CACHE_HOME"]):
        for d in glob.glob(os.path.join(c, "mem", "*", "sessions")):
            shutil.rmtree(d)

# Stop: one new turn appended before each run
exec(open(os.path.join(work, "turn.py")).read())
stop_state = json.load(open(os.path.join(work, "stop-state.json")))
def new_turn():
    with open(stop_state["path"], "a") as f:
        stop_state["parent"] = turn(f, stop_state["next"], stop_state["parent"])
    stop_state["next"] += 1

def hook_argv(b):
    # the hook is `mem-hook`; before it, `mem-recall --hook`
    return [b, "--hook"] if os.path.basename(b) == "mem-recall" else [b]
hook = hook_argv(BIN)
stop = ["/bin/sh", "-c", f"'{bd}/mem-transcript' replay --hook | '{bd}/mem-extract' | '{bd}/mem-index' write >&2"]
events = [("SessionStart", hook, "SessionStart", clear_state, runs),
          ("UserPromptSubmit", hook, "UserPromptSubmit", clear_state, runs),
          ("PreToolUse", hook, "PreToolUse", None, runs),
          ("PreToolUse-cold", hook, "PreToolUse-cold", clear_state, runs),
          ("PreToolUse-nomatch", hook, "PreToolUse-nomatch", None, runs)]
if all(os.access(os.path.join(bd, t), os.X_OK) for t in ("mem-transcript", "mem-extract", "mem-index")):
    events.append(("Stop", stop, "Stop", new_turn, stop_runs))
else:
    print(f"Stop: mem-transcript, mem-extract, mem-index not built beside {BIN}; not measured")

def q(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p))]

print(f"{'event':<20} {'median':>8} {'p95':>8} {'cpu':>7} | {'cat':>6} {'cpu':>5} | {'+median':>8} {'+p95':>8} {'ratio':>6} {'+cpu':>6}  (ms; + = event - cat, paired)")
vs_base = []
# The recall cache trusts a topic file only when the file is older than the
# cache by 2 s (mem-recall/src/load.rs, RACY_SECS); until then every call
# reads the files again and rewrites the cache. The memory directory was
# generated a moment ago, and in real use a prompt never comes within 2 s of
# a directory's creation: let the files age first, or the first events
# measure the racy window instead of the hook.
# The generated files are also written out first: until the kernel's
# writeback of them (up to 30 s later), creating a file or directory on
# the same file system (the session state a hook writes) can wait on the
# file system's journal, about 1 ms each here, which measures the
# benchmark's own set-up instead of the hook.
os.sync()
time.sleep(3)
for name, argv, inp, prepare, n in events:
    stdin = os.path.join(work, inp + ".json")
    with_base = BASE is not None and argv is hook
    for _ in range(3):  # warm-up (Stop: the first run reads the session's backlog)
        if prepare:
            prepare()
        once(argv, stdin)
        if with_base:
            if prepare:
                prepare()
            once(hook_argv(BASE), stdin, base_env)
    wall, cpu, base, bcpu, diff, ratio = [], [], [], [], [], []
    old, old_ratio = [], []
    for i in range(n):
        # one run of each, in turn: (event, cat[, base]) rotated run by run
        kinds = ["event", "cat", "base"] if with_base else ["event", "cat"]
        kinds = kinds[i % len(kinds):] + kinds[:i % len(kinds)]
        got = {}
        for k in kinds:
            if k == "cat":
                got[k] = once([cat], stdin)
                continue
            if prepare:
                prepare()
            got[k] = once(argv, stdin) if k == "event" else once(hook_argv(BASE), stdin, base_env)
        (w, c), (b, bc) = got["event"], got["cat"]
        wall.append(w); cpu.append(c); base.append(b); bcpu.append(bc); diff.append(w - b); ratio.append(w / b)
        if with_base:
            old.append(got["base"]); old_ratio.append(w / got["base"][0])
    print(f"{name:<20} {statistics.median(wall):8.2f} {q(wall, 0.95):8.2f} {statistics.mean(cpu):7.2f} |"
          f" {statistics.median(base):6.2f} {statistics.mean(bcpu):5.2f} | {statistics.median(diff):8.2f}"
          f" {q(diff, 0.95):8.2f} {statistics.median(ratio):6.1f} {statistics.mean(cpu) - statistics.mean(bcpu):6.2f}")
    if with_base:
        ow = [w for w, _ in old]
        vs_base.append((name, statistics.median(wall), statistics.median(ow),
                        statistics.mean(cpu), statistics.mean(c for _, c in old), statistics.median(old_ratio)))

def answers(argv, stdin, env):
    r = subprocess.run(argv, stdin=open(stdin, "rb"), capture_output=True, env=env)
    return bool(r.stdout.strip())

if vs_base:
    print()
    print(f"{'event':<20} {'median':>8} {'base':>8} {'new/base':>8} | {'cpu':>7} {'base':>7} {'new/base':>8} | {'per-run new/base':>16}  (ms; same loop)")
    for name, m, b, c, bc, r in vs_base:
        note = ""
        stdin = os.path.join(work, name + ".json")
        if answers(hook_argv(BIN), stdin, os.environ) and not answers(hook_argv(BASE), stdin, base_env):
            note = "  (the base answers nothing)"
        print(f"{name:<20} {m:8.2f} {b:8.2f} {m / b:8.2f} | {c:7.2f} {bc:7.2f} {c / bc:8.2f} | {r:16.2f}{note}")

if instructions:
    def count(argv, stdin, env):
        """Instructions of one run (callgrind), or None."""
        # under valgrind the hook is tens of times slower: no time budget
        env = dict(env, MEM_HOOK_BUDGET_MS="600000")
        try:
            r = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"] + argv,
                               stdin=open(stdin, "rb"), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               env=env, text=True)
        except FileNotFoundError:
            return None
        for line in r.stderr.splitlines():
            if "Collected :" in line:
                return int(line.split()[-1])
        return None
    print()
    print(f"{'event':<20} {'instructions':>14}" + (f" {'base':>14} {'new/base':>8}" if BASE else ""))
    for name, argv, inp, prepare, n in events:
        if argv is not hook:
            continue
        stdin = os.path.join(work, inp + ".json")
        # as in the benchmark: after a warm-up run, the state prepared
        for _ in range(2):
            if prepare:
                prepare()
            once(argv, stdin)
        if prepare:
            prepare()
        new = count(argv, stdin, os.environ)
        line = f"{name:<20} {new if new is not None else '-':>14}"
        if BASE:
            for _ in range(2):
                if prepare:
                    prepare()
                once(hook_argv(BASE), stdin, base_env)
            if prepare:
                prepare()
            old = count(hook_argv(BASE), stdin, base_env)
            line += f" {old if old is not None else '-':>14}"
            if new and old:
                line += f" {new / old:8.2f}"
        print(line)
PY
