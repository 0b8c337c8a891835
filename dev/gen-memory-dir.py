#!/usr/bin/env python3
"""Write N generated topic files into DIR, for the recall benchmarks.

usage: dev/gen-memory-dir.py DIR N [PREFIX] [SEED]
       (PREFIX: file names PREFIX-00000.md ...; default "topic"; SEED default 7)

Each file is a Claude Code topic file (name, description, type, triggers,
paths, verified_at, expires, and a Fact/Why/How to use body) over a small
vocabulary; about 1 in 50 is about "postgres" (the benchmarks' task).
The same arguments always give the same files.
"""
import os
import random
import sys

d, n = sys.argv[1], int(sys.argv[2])
prefix = sys.argv[3] if len(sys.argv) > 3 else "topic"
seed = int(sys.argv[4]) if len(sys.argv) > 4 else 7
os.makedirs(d, exist_ok=True)
rnd = random.Random(seed)
words = ("build deploy cache index parser config server client token schema migration "
         "release branch logging metrics tracing queue worker retry timeout lockfile "
         "package docker compose staging latency dashboard fixture verify setup").split()
for i in range(n):
    tw = rnd.sample(words, 3)
    if i % 50 == 7:
        tw[0] = "postgres"
    body = " ".join(rnd.choice(words) for _ in range(60))
    with open(os.path.join(d, f"{prefix}-{i:05d}.md"), "w") as f:
        f.write(f'---\nname: "Topic {i} about {tw[0]}"\ndescription: "{tw[0]} needs {tw[1]} before {tw[2]}"\n'
                f'type: feedback\ntriggers: ["{tw[0]}", "{tw[1]}"]\npaths: ["src/{tw[2]}/**"]\n'
                f'verified_at: 2026-06-01\nexpires: never\n---\n'
                f'Fact: {tw[0]} needs {tw[1]}.\nWhy: {body}\nHow to use: run {tw[2]} first.\n')
