#!/usr/bin/env bash
# Per-call cost of the candidate semantic tier (eval/semantic-eval:
# the bundled MiniLM of `pocket-encoder`), as a hook would pay it: a new
# process loads the model, embeds the task, reads the memory vectors cached
# at write time (384 f32 each) and scores them all. 200 memories (the eval
# memories repeated). Prints the breakdown (median of RUNS runs: model load,
# task embedding, scoring, total in-process) and hyperfine's whole-process
# median next to /bin/true in the same run. Budget: 20 ms median, start-up
# included. See docs/recall.md, "Semantic tier".
#
# usage: bench/bench-semantic.sh [SHARED_DIR]   env: RUNS (default 20)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
shared="${1:-${MEM_SHARED_DIR:-$root/../shared}}"
bin="$root/eval/semantic-eval/target/release/semantic-eval"
[ -x "$bin" ] || (cd "$root/eval/semantic-eval" && cargo build --release -q)
runs=${RUNS:-20}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
python3 - "$root/mem-recall/tests/fixtures/recall-eval/claude-memory" "$shared/eval/recall/memory" > "$work/texts.jsonl" <<'PY'
import json, os, re, sys
for d in sys.argv[1:]:
    if not os.path.isdir(d):
        continue
    for f in sorted(os.listdir(d)):
        if f.endswith(".md") and f != "MEMORY.md":
            t = open(os.path.join(d, f), encoding="utf-8").read()
            print(json.dumps({"id": f[:-3], "text": " ".join(re.sub(r"^---.*?---", "", t, flags=re.S).split())}))
PY
"$bin" cache "$work/vectors.bin" 200 < "$work/texts.jsonl"
task="roll the new build out to the live site"
for _ in $(seq "$runs"); do "$bin" query "$work/vectors.bin" "$task"; done > "$work/runs.jsonl"
python3 - "$work/runs.jsonl" <<'PY'
import json, statistics, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
for k in ("load_ms", "embed_task_ms", "score_ms", "total_ms"):
    print(f"{k}: median {statistics.median(r[k] for r in rs):.2f}, max {max(r[k] for r in rs):.2f}")
PY
hyperfine -N -w 3 -r "$runs" --export-markdown "$work/h.md" \
  "$bin query $work/vectors.bin '$task'" "/bin/true" >/dev/null 2>&1 || \
  hyperfine -w 3 -r "$runs" --export-markdown "$work/h.md" "$bin query $work/vectors.bin '$task'" "/bin/true" >/dev/null
cat "$work/h.md"
