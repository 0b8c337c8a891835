#!/usr/bin/env python3
"""Precision of the first run on real projects: is each memory worth injecting?

usage: eval/eval-precision.py [--bin DIR] [--corpus DIR] [-v] [--keep DIR] [LABELS.yaml ...]
       eval/eval-precision.py --unlabelled CORPUS_SESSION_DIR [...]   (lists the memories)

For each labels file (default: every eval/precision/*.yaml) it builds the project as an agent
leaves it: a fake HOME with a git checkout (and its worktrees) whose Claude Code sessions sit under
~/.claude/projects/<slug of the session's cwd>/ with every recorded cwd rewritten, and Codex
rollouts under ~/.codex/sessions/. Then, in the checkout, the README's first run:

    mem-transcript replay --project . --since-last | mem-extract | mem-index write

Each memory written is scored against the labels (a memory is a label when every `match` group
has one of its alternatives in its name, description, body or triggers, case-insensitive; an
alternative `re:RE` is a regex; `in: name` looks at the name only): `keep` → good, `marginal` → marginal, `harmful` → harmful (a
kind that must not appear as a durable memory; harmful wins over keep; a harmful or marginal one
that expires within 30 days of its session is an expiring one-off instead), anything else → noise. A memory
is every label of its kind it matches (one that says two kept things writes both). Then each task runs
`mem-recall --task`: a recalled memory that is one of the task's `expect` labels is a hit, any
other recalled memory a false recall.

Labels file: project, checkout (path under HOME), sessions (a corpus dir, with `cwd: PATH` for
all sessions or `cwd_map: {recorded cwd prefix: path relative to the checkout}`; sub-agent files
kept beside their session), codex (corpus rollouts), keep / marginal / harmful ({id, what,
match}), tasks ({task, expect: [ids]}).

Defaults: binaries target/debug, corpus $MEM_SHARED_DIR/corpus (else ../shared/corpus). Exit 0
when scored, 2 when the corpus is missing.
"""
import argparse
import datetime
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

from topics import topics

KEEP = None
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "dev"))
from sessions import rewrite, slug  # noqa: E402


def copy_session(src, dst, cwd_of):
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    with open(src, "rb") as i, open(dst, "w", encoding="utf-8", errors="surrogateescape") as o:
        for raw in i:
            o.write(rewrite(raw.decode("utf-8", "surrogateescape"), cwd_of))


def git(*args, cwd):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env=dict(os.environ, GIT_AUTHOR_NAME="e", GIT_AUTHOR_EMAIL="e@example.com",
                            GIT_COMMITTER_NAME="e", GIT_COMMITTER_EMAIL="e@example.com"))


def first_cwd(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = re.search(r'"cwd":\s*"([^"]*)"', line)
            if m:
                return m.group(1)
    return None


def build(home, labels, corpus):
    """The fake HOME of one labels file; returns the checkout's path."""
    checkout = os.path.join(home, labels["checkout"])
    os.makedirs(checkout)
    git("init", "-q", "-b", "main", cwd=checkout)
    open(os.path.join(checkout, "README.md"), "w").write(labels["project"] + "\n")
    git("add", ".", cwd=checkout)
    git("commit", "-q", "-m", "init", cwd=checkout)
    made = set()
    for group in labels.get("sessions", []):
        d = os.path.join(corpus, group["dir"])
        cmap = group.get("cwd_map") or {}
        fixed = group.get("cwd")

        def place(rel):
            p = os.path.normpath(os.path.join(checkout, rel))
            if p != checkout and p not in made:
                made.add(p)
                git("worktree", "add", "-q", "-b", os.path.basename(p), p, cwd=checkout)
            return p

        def cwd_of(c):
            if fixed is not None:
                return place(fixed)
            for pre in sorted(cmap, key=len, reverse=True):
                if c == pre or c.startswith(pre + "/"):
                    return place(cmap[pre]) + c[len(pre):]
            return checkout

        for f in sorted(glob.glob(os.path.join(d, "*.jsonl"))):
            c = first_cwd(f)
            top = cwd_of(c) if c else cwd_of(fixed or "")
            # a session lives under the slug of the directory it started in
            base = top
            for p in [checkout, *made]:
                if top == p or top.startswith(p + "/"):
                    base = p
            proj = os.path.join(home, ".claude", "projects", slug(base))
            copy_session(f, os.path.join(proj, os.path.basename(f)), cwd_of)
            sub = f[:-6]
            if os.path.isdir(sub):
                for s in glob.glob(os.path.join(sub, "subagents", "*.jsonl")):
                    copy_session(s, os.path.join(proj, os.path.basename(sub), "subagents",
                                                 os.path.basename(s)), cwd_of)
    codex = os.path.join(home, ".codex", "sessions", "2026", "01", "01")
    for i, r in enumerate(labels.get("codex", [])):
        name = os.path.basename(r)
        if not name.startswith("rollout-"):
            name = "rollout-2026-01-01T00-00-%02d-%s" % (i, name)
        copy_session(os.path.join(corpus, r), os.path.join(codex, name), lambda c: checkout)
    return checkout


def first_run(bindir, home, checkout):
    env = dict(os.environ, HOME=home, XDG_CACHE_HOME=os.path.join(home, ".cache"),
               XDG_CONFIG_HOME=os.path.join(home, ".config"), CODEX_HOME=os.path.join(home, ".codex"))
    env.pop("CLAUDE_CONFIG_DIR", None)
    cmd = (f"'{bindir}/mem-transcript' replay --project . --since-last | '{bindir}/mem-extract' "
           f"| '{bindir}/mem-index' write")
    r = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=checkout, env=env,
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"eval-precision: the first run failed: {r.stderr.strip()[:500]}")
    m = re.search(r"\(in (.*?/memory)\)", r.stderr)
    memdir = m.group(1) if m else os.path.join(home, ".claude", "projects", slug(checkout), "memory")
    return env, memdir, r.stderr.strip()


def memories(memdir):
    out = []
    for name, fm, hay in topics(memdir):
        out.append({"file": str(fm.get("id") or name[:-3]), "name": str(fm.get("name", name)), "hay": hay,
                    "triggers": fm.get("triggers") or [], "type": fm.get("type"), "expires": fm.get("expires"),
                    "verified": fm.get("verified_at")})
    return out


def alt_in(alt, hay):
    if alt.startswith("re:"):
        return re.search(alt[3:], hay, re.I | re.M) is not None
    return alt.lower() in hay


def is_label(mem, label):
    hay = mem["name"].lower() if label.get("in") == "name" else mem["hay"]
    return all(any(alt_in(a, hay) for a in group) for group in label["match"])


def expiring(mem):
    """A memory kept as current context: it expires within 30 days of the
    session it came from (a one-off decision), so it is never injected for
    long."""
    e, v = mem.get("expires"), mem.get("verified")
    if not e or str(e) == "never" or not v:
        return False
    try:
        return (datetime.date.fromisoformat(str(e)) - datetime.date.fromisoformat(str(v))).days <= 30
    except ValueError:
        return False


def verdict(mem, labels):
    """The memory's kind, its first label of that kind, and every label of that
    kind it matches (a memory that says two kept things is both)."""
    for kind in ("harmful", "keep", "marginal"):
        ids = [lab["id"] for lab in labels.get(kind, []) if is_label(mem, lab)]
        if ids:
            if kind in ("harmful", "marginal") and expiring(mem):
                return "expiring", ids[0], ids
            return kind, ids[0], ids
    if expiring(mem):
        return "expiring", None, []
    return "noise", None, []


def recall(bindir, env, memdir, task):
    r = subprocess.run([f"{bindir}/mem-recall", "--memory-dir", memdir, "--task", task,
                        "--format", "jsonl", "--no-cache"], env=env, capture_output=True, text=True)
    got = []
    for line in r.stdout.splitlines():
        try:
            v = json.loads(line)
        except ValueError:
            continue
        if v.get("action", v.get("decision")) == "recall":
            got.append(str(v.get("id")))
    return got


def score(path, bindir, corpus, verbose):
    labels = yaml.safe_load(open(path, encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="mem-precision-") as home:
        checkout = build(home, labels, corpus)
        env, memdir, stderr = first_run(bindir, home, checkout)
        mems = memories(memdir)
        if KEEP:
            dst = os.path.join(KEEP, labels["project"])
            shutil.rmtree(dst, ignore_errors=True)
            shutil.copytree(home, dst, symlinks=True)
        counts = {"keep": 0, "marginal": 0, "noise": 0, "harmful": 0, "expiring": 0}
        by_file = {}
        print(f"## {labels['project']}: {len(mems)} memories")
        if verbose:
            print("   " + stderr.replace("\n", "\n   "))
        for m in mems:
            kind, lid, ids = verdict(m, labels)
            counts[kind] += 1
            by_file[m["file"]] = (kind, ids)
            if verbose:
                exp = f" (expires {m['expires']})" if m.get("expires") and str(m["expires"]) != "never" else ""
                print(f"  {kind:8} {'+'.join(ids) or '-':24} {m['name'][:70]}{exp}  [{', '.join(map(str, m['triggers']))}]")
        kept = {i for k, ids in by_file.values() if k == "keep" for i in ids}
        hits = expected = false = 0
        for t in labels.get("tasks", []):
            got = recall(bindir, env, memdir, t["task"])
            want = set(t.get("expect") or [])
            expected += len(want)
            found = set()
            bad = []
            for f in got:
                kind, ids = by_file.get(f, ("noise", []))
                if want.intersection(ids):
                    found.update(want.intersection(ids))
                else:
                    bad.append(f)
            hits += len(found)
            false += len(bad)
            if verbose:
                print(f"  task {t['task']!r}: hits {sorted(found)} of {sorted(want)}; false {bad}")
        missing = [k["id"] for k in labels.get("keep", []) if k["id"] not in kept]
        print(f"good {counts['keep']}, marginal {counts['marginal']}, noise {counts['noise']}, "
              f"harmful {counts['harmful']}, expiring one-offs {counts['expiring']}; recall hits {hits}/{expected}, false recalls {false}"
              f" ({len(labels.get('tasks', []))} tasks); keep labels not written: {len(missing)}"
              + (f" ({', '.join(missing)})" if missing else ""))
        return counts, hits, expected, false


def unlabelled(d, bindir, corpus):
    labels = {"project": os.path.basename(d.rstrip("/")), "checkout": "src/project",
              "sessions": [{"dir": d, "cwd": "."}]}
    with tempfile.TemporaryDirectory(prefix="mem-precision-") as home:
        checkout = build(home, labels, corpus)
        _, memdir, _ = first_run(bindir, home, checkout)
        mems = memories(memdir)
        print(f"## {d}: {len(mems)} memories")
        for m in mems:
            print(f"  {m['type']}: {m['name'][:80]}  [{', '.join(map(str, m['triggers']))}]")


def main():
    ap = argparse.ArgumentParser(usage=__doc__)
    ap.add_argument("labels", nargs="*")
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "debug"))
    ap.add_argument("--corpus", default=os.path.join(
        os.environ.get("MEM_SHARED_DIR", os.path.join(ROOT, "..", "shared")), "corpus"))
    ap.add_argument("--unlabelled", action="append", default=[])
    ap.add_argument("-v", action="store_true")
    ap.add_argument("--keep", metavar="DIR", help="copy each project's HOME (sessions, memory dir) to DIR/<project>")
    a = ap.parse_args()
    global KEEP
    KEEP = a.keep
    if not os.path.isdir(a.corpus):
        print(f"eval-precision: no corpus at {a.corpus}", file=sys.stderr)
        sys.exit(2)
    bindir = os.path.abspath(a.bin)
    for d in a.unlabelled:
        unlabelled(d, bindir, a.corpus)
    if a.unlabelled and not a.labels:
        return
    files = a.labels or sorted(glob.glob(os.path.join(ROOT, "eval", "precision", "*.yaml")))
    for f in files:
        score(f, bindir, a.corpus, a.v)


main()
