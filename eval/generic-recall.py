#!/usr/bin/env python3
"""How often a project's memories are recalled for tasks that are not about them.

usage: eval/generic-recall.py [--bin DIR] [--tasks FILE] [LABELS.yaml ...]

Runs the first-run write path of eval-precision.py on each labelled project (default: every
eval/precision/*.yaml), then `mem-recall --task` for every task of --tasks (default
eval/precision/generic-tasks.txt: tasks of any project, one per line, `#` comments). Every
memory recalled for such a task is counted: per project, the recalls and the tasks that recall
anything, and the memories recalled most. Lower is better; the labelled tasks of
eval-precision.py say whether recall still finds what it should.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "debug"))
    ap.add_argument("--tasks", default=os.path.join(ROOT, "eval", "precision", "generic-tasks.txt"))
    ap.add_argument("labels", nargs="*")
    a = ap.parse_args()
    labels = a.labels or sorted(glob.glob(os.path.join(ROOT, "eval", "precision", "*.yaml")))
    tasks = [t.strip() for t in open(a.tasks) if t.strip() and not t.startswith("#")]
    total = hit_tasks = 0
    with tempfile.TemporaryDirectory() as keep:
        r = subprocess.run(
            [sys.executable, os.path.join(ROOT, "eval", "eval-precision.py"), "--bin", a.bin, "--keep", keep, *labels],
            capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"eval-precision.py failed:\n{r.stderr}")
        # (glob skips the hidden .claude folders: walk)
        dirs = sorted(root for root, _, files in os.walk(keep) if "MEMORY.md" in files)
        for d in dirs:
            proj = os.path.relpath(d, keep).split(os.sep)[0]
            n = 0
            tasks_hit = 0
            by_mem = {}
            for t in tasks:
                out = subprocess.run(
                    [os.path.join(a.bin, "mem-recall"), "--memory-dir", d, "--task", t, "--format", "jsonl"],
                    capture_output=True, text=True).stdout
                ids = [json.loads(l)["id"] for l in out.splitlines()
                       if l.startswith("{") and json.loads(l).get("action") == "recall"]
                n += len(ids)
                tasks_hit += bool(ids)
                for i in ids:
                    by_mem.setdefault(i, []).append(t)
            total += n
            hit_tasks += tasks_hit
            top = sorted(by_mem.items(), key=lambda kv: -len(kv[1]))[:3]
            print(f"{proj}: {n} recalls, {tasks_hit}/{len(tasks)} tasks recall something"
                  + "".join(f"\n  {i}: {len(ts)} ({'; '.join(ts[:3])})" for i, ts in top))
    print(f"all: {total} recalls of memories for tasks not about them, {hit_tasks} task runs recall something")


if __name__ == "__main__":
    main()
