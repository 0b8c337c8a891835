#!/usr/bin/env python3
"""Print N memory records (JSONL, docs/records.md) for `mem-index write`:
the memories of a long-used or team memory directory, for bench-scale.sh.

usage: bench/gen-scale-records.py N [SEED]     (SEED default 11)

Each record has a name, a one-line description, a type (feedback, project,
reference, a few user), triggers on two of three records, paths on one of
four, and a body of two to five lines (Fact / Why / How to use, sometimes a
command), drawn from a vocabulary of about 400 developer words and 150
project nouns, so that stems are spread as in a real directory (most words
rare, a few common). About 1 in 200 records is about "postgres migrations"
(the benchmark's task); ids are unique. The same arguments always give the
same records.
"""
import json
import random
import sys

n = int(sys.argv[1])
rnd = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 11)

verbs = ("run build deploy check verify restart rebuild regenerate pin bump rotate flush seed "
         "migrate vendor lint format profile bisect retry reindex compact prune cache warm drain "
         "tag sign publish mirror snapshot restore replay trace sample throttle batch shard").split()
nouns = ("api cli config schema migration fixture token secret queue worker proxy cache index "
         "parser lexer compiler linker bundle lockfile manifest registry mirror docker image "
         "container cluster node pod volume bucket table column view trigger cursor connection "
         "pool session cookie header payload webhook endpoint route handler middleware template "
         "widget layout stylesheet font asset sprite thumbnail upload download stream socket "
         "timeout deadline budget quota limit metric gauge histogram dashboard alert pager "
         "runbook changelog release branch commit rebase merge conflict hook pipeline runner "
         "artifact checksum signature certificate keychain vault policy role grant tenant "
         "account invoice payment refund ledger currency locale timezone calendar scheduler "
         "cron daemon service unit socket journal log tracer span sampler exporter collector "
         "benchmark profiler flamegraph allocator heap arena buffer ring channel mutex lock "
         "semaphore thread fiber coroutine future promise callback closure macro trait crate "
         "module package workspace feature flag toggle experiment rollout canary staging "
         "sandbox emulator simulator device firmware driver kernel sysctl ulimit cgroup").split()
adjs = ("flaky slow stale broken missing duplicate nightly local remote shared private public "
        "legacy generated vendored pinned cached encrypted signed compressed partial empty "
        "large small hot cold primary replica readonly writable offline online").split()
tools = ("npm pnpm yarn cargo make bazel gradle mvn pytest tox go dotnet terraform helm kubectl "
         "docker psql redis-cli rg jq sed awk git gh just nix pip poetry uv deno bun").split()
projects = [f"{a}{b}" for a in ("atlas borealis cinder dune ember fjord gale harbor iris juno "
                                "kestrel lumen "
                                "mesa nova onyx").split() for b in ("", "-api", "-web", "-cli",
                                                                     "-infra", "-docs", "-sync",
                                                                     "-core", "-ops", "-ml")]


def zipf(seq, s=1.1):
    """A word of seq, the first ones far more often (as in real text)."""
    k = len(seq)
    r = rnd.random() * sum(1 / (i + 1) ** s for i in range(min(k, 60)))
    for i in range(min(k, 60)):
        r -= 1 / (i + 1) ** s
        if r <= 0:
            return seq[rnd.randrange(i, k) if i == 59 else i]
    return seq[-1]


rnd.shuffle(nouns)
for i in range(n):
    pg = i % 200 == 37
    v, a = rnd.choice(verbs), rnd.choice(adjs)
    n1, n2 = zipf(nouns), rnd.choice(nouns)
    proj, tool = rnd.choice(projects), rnd.choice(tools)
    if pg:
        n1, n2, tool = "postgres", "migration", "psql"
    name = f"{v.capitalize()} the {a} {n1} before the {n2} in {proj} ({i})"
    desc = f"{tool} {v} of the {n1} fails when the {n2} is {a}; {v} it first"
    kind = rnd.random()
    typ = "user" if kind < 0.01 else "reference" if kind < 0.1 else "project" if kind < 0.35 else "feedback"
    lines = [f"Fact: in {proj} the {a} {n1} needs a {v} before the {n2}."]
    if rnd.random() < 0.7:
        lines.append(f"Why: the {n2} reads the {n1} {rnd.choice(['at start-up', 'on every request', 'once a day', 'when the cache is cold'])}; "
                     f"a {rnd.choice(adjs)} {rnd.choice(nouns)} made the {rnd.choice(nouns)} {rnd.choice(['time out', 'fail', 'hang', 'crash'])}.")
    if rnd.random() < 0.5:
        lines.append(f"How to use: run `{tool} {v} {n1}` before touching the {n2}.")
    for _ in range(rnd.randrange(0, 3)):
        lines.append(" ".join(rnd.choice(nouns + verbs + adjs) for _ in range(rnd.randrange(6, 14))).capitalize() + ".")
    rec = {"id": f"{v}-{a}-{n1}-{n2}-{i:06d}", "name": name, "description": desc, "type": typ,
           "verified_at": f"2026-{1 + i % 11:02d}-{1 + i % 28:02d}", "body": "\n".join(lines) + "\n"}
    if rnd.random() < 0.66:
        rec["triggers"] = [f"{n1} {n2}" if rnd.random() < 0.5 else n1, f"{tool} {v}"]
    if rnd.random() < 0.25:
        rec["paths"] = [f"{proj}/{n1}/**"]
    if rnd.random() < 0.03:
        rec["expires"] = "2026-03-01"
    print(json.dumps(rec, separators=(",", ":")))
