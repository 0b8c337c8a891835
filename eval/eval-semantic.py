#!/usr/bin/env python3
"""Measure a semantic recall tier against the lexical one, per category.

usage: eval/eval-semantic.py [--embedder BIN | --embed-cmd "BIN static-embed TABLE"]
                                [--bin MEM_RECALL] [--shared DIR] [--short] [--center]
                                [--threshold T --top K] [-v]

The embedder is eval/semantic-eval (bundled paraphrase-MiniLM-L3-v2 of
the `pocket-encoder` crate), built with `cargo build --release` in that folder;
it is not part of the workspace. For every task of the project's three task
sets (tasks.jsonl: the tuning set; holdout.jsonl and holdout-semantic.jsonl:
written before any semantic result was seen) it computes:

- lexical: what `mem-recall --format jsonl` recalls today (the shipped tiers:
  triggers, paths, lexical score with the vocabulary);
- semantic: the memories whose cosine with the task is >= T, at most K of
  them (memory text = name, description, body; vectors computed once, as they
  would be at write time; only the task is embedded per call);
  (`--short`: name and description only; `--center`: the mean of all
  vectors removed, for static embeddings);
- lexical+semantic: the union (lexical hits first, semantic-only after).

Hits count expected ids recalled; false recalls count forbidden ids recalled.
Without --threshold it sweeps T and K on tasks.jsonl, picks the setting with
the most hits among those adding no false recall there, and reports every set
at that setting. See docs/recall.md, "Semantic tier".
"""
import json, os, re, subprocess, sys
from collections import defaultdict

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
args = sys.argv[1:]
def opt(name, default):
    return args[args.index(name) + 1] if name in args else default
embedder = opt("--embedder", os.path.join(root, "eval/semantic-eval/target/release/semantic-eval"))
binary = opt("--bin", os.path.join(root, "target/debug/mem-recall"))
shared = opt("--shared", os.environ.get("MEM_SHARED_DIR", os.path.join(root, "../shared")))
verbose = "-v" in args
short = "--short" in args  # memory text: name and description only
embed_cmd = opt("--embed-cmd", None)  # another embedder, e.g. "BIN static-embed TABLE"
fx = os.path.join(root, "mem-recall/tests/fixtures/recall-eval")
dirs = {"claude": os.path.join(fx, "claude-memory"), "eval": os.path.join(shared, "eval/recall/memory")}
sets = ["tasks.jsonl", "holdout.jsonl", "holdout-semantic.jsonl"]
cats = ("paraphrase", "partial", "zh", "unrelated")

def memory_text(path):
    text = open(path, encoding="utf-8").read()
    m = re.match(r"---\n(.*?)\n---\n?(.*)", text, re.S)
    fm, body = (m.group(1), m.group(2)) if m else ("", text)
    field = lambda k: (re.search(rf"^{k}:\s*(.*)$", fm, re.M) or [None, ""])[1].strip().strip('"')
    if short:
        return f"{field('name')}. {field('description')}"
    return f"{field('name')}. {field('description')}. {' '.join(body.split())}"

mems = {}  # (memory, id) -> text
for key, d in dirs.items():
    if not os.path.isdir(d):
        continue
    for f in sorted(os.listdir(d)):
        if f.endswith(".md") and f != "MEMORY.md":
            mems[(key, f[:-3])] = memory_text(os.path.join(d, f))
tasks = {s: [json.loads(l) for l in open(os.path.join(fx, s), encoding="utf-8")] for s in sets}
tasks = {s: [t for t in ts if (t["memory"], ) and os.path.isdir(dirs[t["memory"]])] for s, ts in tasks.items()}

inp = [{"id": ["m", k, i], "text": t} for (k, i), t in mems.items()]
inp += [{"id": ["t", s, n], "text": t["task"]} for s, ts in tasks.items() for n, t in enumerate(ts)]
p = subprocess.run(embed_cmd.split() if embed_cmd else [embedder, "embed"], input="\n".join(json.dumps(x) for x in inp),
                   capture_output=True, text=True, check=True)
print("embedder:", p.stderr.strip())
vec = {tuple(r["id"]): r["vec"] for r in map(json.loads, p.stdout.splitlines())}
if "--center" in args:  # remove the common component (the mean of all vectors)
    mean = [sum(col) / len(vec) for col in zip(*vec.values())]
    for k, v in vec.items():
        c = [x - m for x, m in zip(v, mean)]
        n = sum(x * x for x in c) ** 0.5 or 1.0
        vec[k] = [x / n for x in c]
cos = lambda a, b: sum(x * y for x, y in zip(a, b))

env = dict(os.environ, XDG_CACHE_HOME="/nonexistent-mem-eval")
lexical = {}
for s, ts in tasks.items():
    for n, t in enumerate(ts):
        cmd = [binary, "--memory-dir", dirs[t["memory"]], "--task", t["task"], "--today", t["today"],
               "--format", "jsonl", "--no-cache"]
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True).stdout
        lexical[(s, n)] = {r["id"] for r in map(json.loads, out.splitlines()) if r.get("action") == "recall"}

def semantic(s, n, t, thr, top):
    q = vec[("t", s, n)]
    scored = sorted(((cos(q, vec[("m", k, i)]), i) for (k, i) in mems if k == t["memory"]), reverse=True)
    return {i for c, i in scored[:top] if c >= thr}, scored[:3]

def score(s, thr, top):
    st = {m: defaultdict(lambda: [0, 0, 0, 0]) for m in ("lexical", "semantic", "lexical+semantic")}
    for n, t in enumerate(tasks[s]):
        lex = lexical[(s, n)]
        sem, best = semantic(s, n, t, thr, top)
        e, f = set(t["expect"]), set(t["forbid"])
        for mode, got in (("lexical", lex), ("semantic", sem), ("lexical+semantic", lex | sem)):
            r = st[mode][t["category"]]
            r[0] += len(e & got); r[1] += len(e); r[2] += len(f & got); r[3] += 1
        if verbose and thr is not None and (e - lex - sem or f & sem):
            print(f"  {s} {t['category']:10} {t['task']!r}: lexical {sorted(lex & (e | f))}, "
                  f"semantic {sorted(sem)}, top {[(i, round(c, 3)) for c, i in best]}")
    return st

def totals(st, mode):
    h = sum(v[0] for v in st[mode].values()); fr = sum(v[2] for v in st[mode].values())
    return h, fr

if "--threshold" in args:
    thr, top = float(opt("--threshold", "0.5")), int(opt("--top", "1"))
else:
    base_h, base_f = totals(score("tasks.jsonl", 2.0, 0), "lexical")
    best = None
    print("sweep on tasks.jsonl (lexical+semantic): T, K -> hits, false recalls")
    for top in (1, 2, 3):
        for thr in [x / 100 for x in range(30, 86, 5)]:
            h, fr = totals(score("tasks.jsonl", thr, top), "lexical+semantic")
            print(f"  T={thr:.2f} K={top}: {h} hits, {fr} false")
            if fr <= base_f and (best is None or h > best[0]):
                best = (h, thr, top)
    if best is None:
        print("no setting keeps the lexical tier's false recalls; showing T=0.85, K=1")
        best = (0, 0.85, 1)
    _, thr, top = best
# Threshold-free: how often the expected memory is the semantic tier's first.
for s in sets:
    top1 = n = 0
    for i, t in enumerate(tasks[s]):
        if t["expect"]:
            n += 1
            top1 += semantic(s, i, t, -1.0, 1)[0] <= set(t["expect"])
    print(f"{s}: expected memory ranked first by cosine in {top1}/{n} tasks")
print(f"\nsetting: T={thr:.2f}, K={top}")
for s in sets:
    st = score(s, thr, top)
    print(f"\n{s}\n| category | lexical | semantic only | lexical+semantic |\n|---|---|---|---|")
    for c in cats:
        if c not in st["lexical"]:
            continue
        cell = lambda m: "%d/%d, %d false" % tuple(st[m][c][i] for i in (0, 1, 2))
        print(f"| {c} ({st['lexical'][c][3]}) | {cell('lexical')} | {cell('semantic')} | {cell('lexical+semantic')} |")
