#!/usr/bin/env python3
"""Score extraction on real sessions against the hand-made labels.

usage: eval/score-real.py [--labels FILE] [--corpus DIR] [--bin DIR] [-v] [--all]

For each project of the labels file, every listed session goes through the real write path
into one fresh memory directory:

    mem-transcript replay SESSION | mem-extract | mem-index write --memory-dir DIR

Then each lesson is looked for among the topic files written (a memory is the lesson when every
`match` group has one of its alternatives in the memory's name, description, body or triggers,
case-insensitive). Prints recall (lessons found / lessons) and precision (memories that are
some lesson of their project / memories written), per kind and in total.

--all writes every main session of the corpus instead (one memory directory per corpus project
folder) and lists each memory written, for reading by hand.

Defaults: labels mem-extract/tests/data/real-labels.yaml, corpus $MEM_SHARED_DIR/corpus (else
../shared/corpus), binaries
target/debug. Exit 0 when scored, 2 when the corpus is missing.
"""
import argparse
import collections
import os
import subprocess
import sys
import tempfile

import yaml

from topics import topics

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def write_path(bindir, sessions, memdir, stream=False):
    if stream:
        # the learn-everything path: every session of the project in one
        # stream, oldest first as listed
        files = " ".join(f"'{s}'" for s in sessions)
        cmd = (f"'{bindir}/mem-transcript' replay {files} 2>/dev/null | '{bindir}/mem-extract' "
               f"| '{bindir}/mem-index' write --memory-dir '{memdir}' >/dev/null")
        r = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            print(f"warning: write path failed: {r.stderr.strip()[:300]}", file=sys.stderr)
        return
    for s in sessions:
        cmd = (f"'{bindir}/mem-transcript' replay '{s}' 2>/dev/null | '{bindir}/mem-extract' "
               f"| '{bindir}/mem-index' write --memory-dir '{memdir}' >/dev/null")
        r = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            print(f"warning: write path failed on {s}: {r.stderr.strip()[:300]}", file=sys.stderr)


def memories(memdir):
    return [{"file": name, "fm": fm, "hay": hay} for name, fm, hay in topics(memdir)]


def matches(lesson, mem):
    return all(any(alt.lower() in mem["hay"] for alt in group) for group in lesson["match"])


def show(m):
    fm = m["fm"]
    ev = (fm.get("evidence") or [""])[0]
    return (f"{fm.get('name')!s} [{fm.get('type')}/{fm.get('source', '-')}, "
            f"conf {fm.get('confidence')}, triggers {fm.get('triggers')}] {ev}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--labels", default=os.path.join(ROOT, "mem-extract/tests/data/real-labels.yaml"))
    shared = os.environ.get("MEM_SHARED_DIR", os.path.join(ROOT, "../shared"))
    ap.add_argument("--corpus", default=os.path.join(shared, "corpus"))
    ap.add_argument("--bin", default=os.path.join(ROOT, "target/debug"))
    ap.add_argument("-v", action="store_true", help="list each lesson and memory")
    ap.add_argument("--all", action="store_true", help="write every corpus session, list memories")
    ap.add_argument("--stream", action="store_true",
                    help="a project's sessions in one stream (the learn-everything command) "
                         "instead of one write path per session")
    a = ap.parse_args()
    if not os.path.isdir(a.corpus):
        print(f"score-real: no corpus at {a.corpus}", file=sys.stderr)
        sys.exit(2)
    tmp = tempfile.mkdtemp(prefix="score-real-")
    if a.all:
        groups = collections.OrderedDict()
        for dirpath, _, files in sorted(os.walk(a.corpus)):
            if "subagents" in dirpath:
                continue
            for f in sorted(files):
                if f.endswith(".jsonl") and not f.startswith("agent-"):
                    groups.setdefault(os.path.relpath(dirpath, a.corpus), []).append(os.path.join(dirpath, f))
        total = 0
        for i, (proj, sessions) in enumerate(groups.items()):
            d = os.path.join(tmp, f"p{i}")
            write_path(a.bin, sessions, d, a.stream)
            ms = memories(d)
            total += len(ms)
            if ms:
                print(f"== {proj} ({len(sessions)} sessions)")
                for m in ms:
                    print("  - " + show(m))
        print(f"all: {total} memories from {sum(len(s) for s in groups.values())} sessions")
        return
    labels = yaml.safe_load(open(a.labels, encoding="utf-8"))
    by_kind = collections.defaultdict(lambda: [0, 0])
    found_total, mems_total, mems_good = 0, 0, 0
    for proj, sessions in labels["projects"].items():
        d = os.path.join(tmp, proj)
        write_path(a.bin, [os.path.join(a.corpus, s) for s in sessions], d, a.stream)
        ms = memories(d)
        lessons = [l for l in labels["lessons"] if l["project"] == proj]
        good = set()
        for l in lessons:
            hits = [m for m in ms if matches(l, m)]
            by_kind[l["kind"]][1] += 1
            if hits:
                by_kind[l["kind"]][0] += 1
                found_total += 1
                good.update(m["file"] for m in hits)
            if a.v:
                print(f"{'HIT ' if hits else 'miss'} {proj}/{l['id']} ({l['kind']})"
                      + (f" <- {hits[0]['file']}" if hits else ""))
        mems_total += len(ms)
        mems_good += len(good)
        if a.v:
            for m in ms:
                if m["file"] not in good:
                    print(f"  unlabelled {proj}: {show(m)}")
    n = len(labels["lessons"])
    print("kind        found/lessons")
    for k, (f, t) in sorted(by_kind.items()):
        print(f"{k:<11} {f}/{t}")
    prec = mems_good / mems_total if mems_total else 1.0
    print(f"real: recall {found_total}/{n} ({found_total / n:.2f}), "
          f"precision {mems_good}/{mems_total} ({prec:.2f})")


if __name__ == "__main__":
    main()
