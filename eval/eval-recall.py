#!/usr/bin/env python3
"""Hit rate and false recalls per category of the project's own recall tasks.

usage: eval/eval-recall.py [--bin MEM_RECALL] [--tasks FILE] [--shared DIR (default $MEM_SHARED_DIR or ../shared)] [-v] [-- EXTRA ARGS]

Tasks (mem-recall/tests/fixtures/recall-eval/tasks.jsonl) are in the format of
../shared/eval/recall/tasks.jsonl plus "category" and "memory": "claude" (the
Claude-Code-style directory next to the tasks, no triggers) or "eval" (the
memory directory of ../shared/eval/recall, skipped when missing). Each task is
run through the real binary (`--format jsonl`); EXTRA ARGS are passed on (for
instance `-- --no-expand`). Prints one row per category: hits over expected
ids, hit rate, forbidden ids recalled (false recalls), and tasks run. `--tasks
mem-recall/tests/fixtures/recall-eval/holdout.jsonl` scores the held-out tasks
(written after the vocabulary, never tuned on). See docs/recall.md.
"""
import json, os, subprocess, sys
from collections import defaultdict

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
args = sys.argv[1:]
extra = []
if "-h" in args or "--help" in args:
    print(__doc__.strip())
    sys.exit(0)
if "--" in args:
    extra = args[args.index("--") + 1:]
    args = args[:args.index("--")]
def opt(name, default):
    return args[args.index(name) + 1] if name in args else default
binary = opt("--bin", os.path.join(root, "target/debug/mem-recall"))
tasks = opt("--tasks", os.path.join(root, "mem-recall/tests/fixtures/recall-eval/tasks.jsonl"))
shared = opt("--shared", os.environ.get("MEM_SHARED_DIR", os.path.join(root, "../shared")))
verbose = "-v" in args
if not os.access(binary, os.X_OK):
    sys.exit(f"eval-recall: {binary} is not an executable (build it with `cargo build -p mem-recall`, or give --bin)")
dirs = {"claude": os.path.join(os.path.dirname(tasks), "claude-memory"),
        "eval": os.path.join(shared, "eval/recall/memory")}
env = dict(os.environ, XDG_CACHE_HOME="/nonexistent-mem-eval")
stats = defaultdict(lambda: [0, 0, 0, 0])  # hits, expected, false recalls, tasks
for line in open(tasks, encoding="utf-8"):
    t = json.loads(line)
    d = dirs[t["memory"]]
    if not os.path.isdir(d):
        continue
    cmd = [binary, "--memory-dir", d, "--task", t["task"], "--today", t["today"],
           "--format", "jsonl", "--no-cache"]
    for p in t.get("paths", []):
        cmd += ["--path", p]
    p = subprocess.run(cmd + extra, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        sys.exit(f"eval-recall: {' '.join(cmd)} failed: {p.stderr.strip()}")
    got = {r["id"] for r in map(json.loads, p.stdout.splitlines()) if r.get("action") == "recall"}
    e, f = set(t["expect"]), set(t["forbid"])
    s = stats[t["category"]]
    s[0] += len(e & got); s[1] += len(e); s[2] += len(f & got); s[3] += 1
    if verbose and (e - got or f & got):
        print(f"  {t['category']:10} {t['task']!r}: missed {sorted(e - got)}, false {sorted(f & got)}")
print("| category | hits | hit rate | false recalls | tasks |")
print("|---|---:|---:|---:|---:|")
tot = [0, 0, 0, 0]
for c in ("paraphrase", "partial", "zh", "unrelated"):
    if c not in stats:
        continue
    h, n, fr, k = stats[c]
    tot = [a + b for a, b in zip(tot, stats[c])]
    print(f"| {c} | {h}/{n} | {h / n if n else 1:.2f} | {fr} | {k} |")
h, n, fr, k = tot
print(f"| all | {h}/{n} | {h / n if n else 1:.2f} | {fr} | {k} |")
