#!/usr/bin/env bash
# Recall, the prompt hook and consolidation at scale: memory directories of
# 1,000, 10,000 and 100,000 topic files written through `mem-index write`
# from generated records (bench/gen-scale-records.py: name, description,
# type, triggers, paths, a body of a few lines, a varied vocabulary; the
# MEMORY.md index as mem-index writes it). Per size, the median wall time
# (min-max, and the mean user+system CPU) of:
#   recall cold   `mem-recall --task …` with no recall cache (first call)
#   recall warm   the same with the cache built and nothing changed
#   hook warm     `mem-hook` on a UserPromptSubmit event (stdin),
#                 the cache built, the session's list of injected memories
#                 cleared before each run
#   dream         `mem-dream --force` (consolidation, durable journal) on a
#                 fresh copy of the directory each run (the copy not timed)
# Every run is a process of its own (posix_spawn); with BASE_DIR the two
# builds run in turn, run by run, each with its own cache, and the ratio
# new/base of the medians is printed; their recall output must be equal.
#
# usage: bench/bench-scale.sh [SIZES...]          (default: 1000 10000 100000)
# env:   BIN_DIR      the directory of mem-index, mem-recall, mem-dream
#                     (default: built with scripts/build-release.sh)
#        BASE_DIR     a second build's directory, measured in the same run
#        RUNS         warm runs (default 20), COLD_RUNS (default 5),
#        DREAM_RUNS   (default 3), DREAM_SIZES (default: "10000 100000")
#        WORK         keep the generated directories there (default: a
#                     temporary directory, removed at the end)
# On a busy machine compare the ratios and the CPU column, not the walls.
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 10000 100000)
if [ -z "${BIN_DIR:-}" ]; then
  BIN_DIR=$(scripts/build-release.sh -q -p mem-index -p mem-recall -p mem-hook -p mem-dream)
fi
if [ -n "${WORK:-}" ]; then
  work=$(realpath -m "$WORK"); mkdir -p "$work"
else
  work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fi
export HOME="$work/home" CLAUDE_CONFIG_DIR="$work/home/.claude"
unset MEM_MEMORY_DIR MEM_DISABLE CLAUDE_CODE_DISABLE_AUTO_MEMORY MEM_REMOTE MEM_NOW MEM_TODAY MEM_HOOK_GUARD
mkdir -p "$HOME/.claude" "$work/proj"
echo "bench-scale: $(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $BIN_DIR${BASE_DIR:+ (base $BASE_DIR)}"

for n in "${sizes[@]}"; do
  d="$work/mem-$n"
  if [ ! -f "$d/MEMORY.md" ]; then
    rm -rf "$d"; mkdir -p "$d"
    python3 bench/gen-scale-records.py "$n" |
      XDG_CACHE_HOME="$work/cache-gen" "$BIN_DIR/mem-index" write --memory-dir "$d" --max-files 0 >/dev/null 2>"$work/write-$n.err" ||
      { cat "$work/write-$n.err" >&2; exit 1; }
  fi
done
sleep 2.2   # the files past the recall cache's racy window (load.rs RACY_SECS)
sync

python3 - "$work" "$BIN_DIR" "${BASE_DIR:-}" "${RUNS:-20}" "${COLD_RUNS:-5}" "${DREAM_RUNS:-3}" \
  "${DREAM_SIZES:-10000 100000}" "${sizes[@]}" <<'PY'
import glob, json, os, shutil, statistics, subprocess, sys, time
work, bindir, basedir = sys.argv[1], sys.argv[2], sys.argv[3]
runs, cold_runs, dream_runs = int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
dream_sizes = set(sys.argv[7].split())
sizes = sys.argv[8:]
task = "check the postgres migration before the release"
today = "2026-07-11"
builds = [("new", bindir)] + ([("base", basedir)] if basedir else [])
null = os.open(os.devnull, os.O_WRONLY)

def cache_of(b):
    return os.path.join(work, "cache-" + b)

def spawn(argv, env, stdin_file=None):
    acts = [(os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)]
    fd = None
    if stdin_file:
        fd = os.open(stdin_file, os.O_RDONLY)
        acts.append((os.POSIX_SPAWN_DUP2, fd, 0))
    t0 = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, env, file_actions=acts)
    _, status, ru = os.wait4(pid, 0)
    wall = (time.perf_counter() - t0) * 1000
    if fd is not None:
        os.close(fd)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"bench-scale: {' '.join(argv)} exited {os.waitstatus_to_exitcode(status)}")
    return wall, (ru.ru_utime + ru.ru_stime) * 1000

def measure(n_runs, make):
    """make(build) -> (argv, env, stdin, prepare); runs the builds in turn."""
    res = {b: ([], []) for b, _ in builds}
    for i in range(n_runs):
        order = builds if i % 2 == 0 else builds[::-1]
        for b, d in order:
            argv, env, stdin, prepare = make(b, d)
            if prepare:
                prepare()
            w, c = spawn(argv, env, stdin)
            res[b][0].append(w); res[b][1].append(c)
    return res

def cell(r, b):
    w, c = r[b]
    return "%.1f ms (%.1f–%.1f; cpu %.1f)" % (statistics.median(w), min(w), max(w), statistics.mean(c))

def ratio(r):
    return "%.2fx" % (statistics.median(r["new"][0]) / statistics.median(r["base"][0]))

def env_for(b, **kw):
    return dict(os.environ, XDG_CACHE_HOME=cache_of(b), **kw)

header = "| memories | what | %s |%s" % ("new" if basedir else "median wall (min–max; mean cpu ms)",
                                       " base | new/base |" if basedir else "")
print(header)
print("|---:|---|---:|" + ("---:|---:|" if basedir else ""))
for n in sizes:
    d = os.path.join(work, f"mem-{n}")
    recall = lambda b, bd: [os.path.join(bd, "mem-recall"), "--memory-dir", d, "--task", task, "--today", today]
    def drop_cache(b):
        return lambda: shutil.rmtree(cache_of(b), ignore_errors=True)
    rows = []
    rows.append(("recall cold", measure(cold_runs, lambda b, bd: (recall(b, bd), env_for(b), None, drop_cache(b)))))
    # the cache built (and its listing trusted: written past the racy window)
    outs = {}
    for b, bd in builds:
        subprocess.run(recall(b, bd), env=env_for(b), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    time.sleep(2.2)
    for b, bd in builds:
        subprocess.run(recall(b, bd), env=env_for(b), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        outs[b] = subprocess.run(recall(b, bd), env=env_for(b), capture_output=True, check=True).stdout
    if basedir and outs["new"] != outs["base"]:
        sys.exit(f"bench-scale: at {n} memories the two builds recall differently")
    rows.append(("recall warm", measure(runs, lambda b, bd: (recall(b, bd), env_for(b), None, None))))
    ev = os.path.join(work, "prompt.json")
    with open(ev, "w") as f:
        json.dump({"session_id": "bench-scale", "transcript_path": os.path.join(work, "none.jsonl"),
                   "cwd": os.path.join(work, "proj"), "hook_event_name": "UserPromptSubmit",
                   "prompt": task}, f)
    def hook_cmd(bd):
        # `mem-hook`; a build from before it answered as `mem-recall --hook`
        h = os.path.join(bd, "mem-hook")
        return [h] if os.path.exists(h) else [os.path.join(bd, "mem-recall"), "--hook"]
    def clear_sessions(b):
        def f():
            for s in glob.glob(os.path.join(cache_of(b), "mem", "*", "sessions")):
                shutil.rmtree(s)
        return f
    rows.append(("prompt hook warm", measure(runs, lambda b, bd: (
        hook_cmd(bd), env_for(b, MEM_MEMORY_DIR=d), ev, clear_sessions(b)))))
    if n in dream_sizes:
        def fresh(b):
            def f():
                c = os.path.join(work, f"dream-{b}")
                shutil.rmtree(c, ignore_errors=True)
                shutil.copytree(d, c, symlinks=True)
                subprocess.run(["sync"], check=True)
            return f
        rows.append(("dream --force", measure(dream_runs, lambda b, bd: (
            [os.path.join(bd, "mem-dream"), "--memory-dir", os.path.join(work, f"dream-{b}"), "--force",
             "--today", today, "--max-files", "0"], env_for(b), None, fresh(b)))))
    for what, r in rows:
        line = f"| {int(n):,} | {what} | {cell(r, 'new')} |"
        if basedir:
            line += f" {cell(r, 'base')} | {ratio(r)} |"
        print(line, flush=True)
PY
