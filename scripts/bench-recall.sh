#!/usr/bin/env bash
# Whole-process latency of `mem-recall --task …` next to `rg -l -i WORD DIR`
# on generated memory directories of 200, 1,000 and 10,000 topic files
# (median of many runs, hyperfine, warm cache). Targets: < 5 ms at 200
# files; at 10,000 files no slower than 1.5x ripgrep.
#
# usage: scripts/bench-recall.sh [SIZES...]      (default: 200 1000 10000)
# env:   MEM_RECALL_BIN  the binary (default: builds a release one)
#        RUNS            runs per command (default 50)
set -euo pipefail
cd "$(dirname "$0")/.."

need() {
  command -v "$1" >/dev/null 2>&1 && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing $2 ..." >&2
    apt-get install -y -q "$2" >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get install -y -q "$2" >/dev/null; }
  fi
  command -v "$1" >/dev/null 2>&1 || { echo "bench-recall: $1 is missing (apt-get install $2)" >&2; exit 1; }
}
need hyperfine hyperfine
need rg ripgrep
need python3 python3

bin=${MEM_RECALL_BIN:-}
if [ -z "$bin" ]; then
  target=${CARGO_TARGET_DIR:-target}
  cargo build -q --release -p mem-recall
  bin="$target/release/mem-recall"
fi
runs=${RUNS:-50}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(200 1000 10000)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME="$work/cache" CLAUDE_CONFIG_DIR="$work/claude" HOME="$work/home"
mkdir -p "$HOME"

gen() { # DIR N: N topic files; about 1 in 50 mentions "postgres"
  python3 - "$1" "$2" <<'PY'
import os, random, sys
d, n = sys.argv[1], int(sys.argv[2])
os.makedirs(d, exist_ok=True)
rnd = random.Random(7)
words = ("build deploy cache index parser config server client token schema migration "
         "release branch logging metrics tracing queue worker retry timeout lockfile "
         "package docker compose staging latency dashboard fixture verify setup").split()
for i in range(n):
    tw = rnd.sample(words, 3)
    if i % 50 == 7:
        tw[0] = "postgres"
    body = " ".join(rnd.choice(words) for _ in range(60))
    with open(os.path.join(d, f"topic-{i:05d}.md"), "w") as f:
        f.write(f'---\nname: "Topic {i} about {tw[0]}"\ndescription: "{tw[0]} needs {tw[1]} before {tw[2]}"\n'
                f'type: feedback\ntriggers: ["{tw[0]}", "{tw[1]}"]\npaths: ["src/{tw[2]}/**"]\n'
                f'verified_at: 2026-06-01\nexpires: never\n---\n'
                f'Fact: {tw[0]} needs {tw[1]}.\nWhy: {body}\nHow to use: run {tw[2]} first.\n')
PY
}

median_ms() { python3 -c 'import json,sys; print("%.1f" % (json.load(open(sys.argv[1]))["results"][0]["median"]*1000))' "$1"; }

printf '| files | mem-recall median | rg -l -i median | ratio |\n|---:|---:|---:|---:|\n'
for n in "${sizes[@]}"; do
  dir="$work/mem-$n"
  gen "$dir" "$n"
  recall=("$bin" --memory-dir "$dir" --task "check the postgres migration" --today 2026-07-11 --format jsonl)
  sleep 2                      # past the cache's racy window (load.rs RACY_SECS)
  "${recall[@]}" >/dev/null    # builds the cache
  hyperfine -N -w 5 -r "$runs" --export-json "$work/r.json" "$(printf '%q ' "${recall[@]}")" >/dev/null 2>&1
  hyperfine -N -w 5 -r "$runs" --export-json "$work/g.json" "rg -l -i postgres $dir" -i >/dev/null 2>&1
  r=$(median_ms "$work/r.json"); g=$(median_ms "$work/g.json")
  printf '| %s | %s ms | %s ms | %s |\n' "$n" "$r" "$g" "$(python3 -c "print('%.2fx' % ($r/$g))")"
done
