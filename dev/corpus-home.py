#!/usr/bin/env python3
"""Build a realistic home directory from the corpus in ../shared: every
Claude Code session (sub-agent files beside it) under
HOME/.claude/projects/<slug of PROJECT>/ and every Codex rollout under
HOME/.codex/sessions/, with each recorded cwd rewritten to PROJECT so they are
that project's sessions. Used to time `mem-transcript replay --project`.

Usage: dev/corpus-home.py HOME PROJECT [CORPUS]   (CORPUS: ../shared/corpus)
"""
import os, shutil, sys

from sessions import rewrite, slug

def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    home, project = sys.argv[1], os.path.realpath(sys.argv[2])
    here = os.path.dirname(os.path.abspath(__file__))
    corpus = sys.argv[3] if len(sys.argv) > 3 else os.path.join(here, "..", "..", "shared", "corpus")
    claude = os.path.join(home, ".claude", "projects", slug(project))
    codex = os.path.join(home, ".codex", "sessions", "2026", "01", "01")
    os.makedirs(claude, exist_ok=True)
    os.makedirs(codex, exist_ok=True)
    n = {"claude": 0, "codex": 0, "other": 0}
    for root, _, files in os.walk(corpus):
        for f in sorted(files):
            if not f.endswith(".jsonl"):
                continue
            src = os.path.join(root, f)
            with open(src, "rb") as fh:
                head = fh.read(65536).decode("utf-8", "replace")
            if '"session_meta"' in head or f.startswith("rollout-") or "/codex/" in src:
                kind, dst = "codex", os.path.join(codex, f if f.startswith("rollout-") else
                                                  "rollout-2026-01-01T00-00-00-%s" % f)
            elif '"sessionId"' in head or os.path.getsize(src) == 0:
                kind = "claude"
                rel = src.split(os.sep)
                # keep <session>/subagents/agent-*.jsonl beside its session
                if "subagents" in rel:
                    i = rel.index("subagents")
                    dst = os.path.join(claude, rel[i - 1], "subagents", f)
                else:
                    dst = os.path.join(claude, f)
            else:
                n["other"] += 1
                continue
            if os.path.exists(dst):
                dst = dst[:-6] + "-%d.jsonl" % n[kind]
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            with open(src, "rb") as i, open(dst, "w", encoding="utf-8", errors="surrogateescape") as o:
                for raw in i:
                    o.write(rewrite(raw.decode("utf-8", "surrogateescape"), lambda _: project))
            n[kind] += 1
    print("claude %(claude)d, codex %(codex)d, skipped %(other)d non-session files" % n, file=sys.stderr)

main()
