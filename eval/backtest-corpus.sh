#!/usr/bin/env bash
# `mem-hook backtest` on every corpus project with more than one session:
# prints the table of docs/recall.md (project | sessions | memories written |
# lessons repeated | would have been recalled).
# usage: eval/backtest-corpus.sh [SHARED_DIR (default $MEM_SHARED_DIR or ../shared)]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
shared="${1:-${MEM_SHARED_DIR:-$root/../shared}}"
c="$shared/corpus"
bin="${MEM_HOOK:-$root/target/debug/mem-hook}"
[ -d "$c" ] || { echo "backtest-corpus: no corpus at $c" >&2; exit 1; }
# every corpus folder holding two or more session files (sub-agent files excluded)
mapfile -t dirs < <(cd "$c" && find . -name '*.jsonl' -not -name 'agent-*' -not -path '*/subagents/*' \
  -printf '%h\n' | sort | uniq -c | awk '$1 > 1 {print $2}' | sed 's|^\./||')
echo "| project | sessions | memories written | lessons repeated | would have been recalled |"
echo "|---|---:|---:|---:|---:|"
for d in "${dirs[@]}"; do
  name="${d%%/*}"; name="${name/__//} \`${d##*/}\`"; dir="$c/$d"
  out="$("$bin" backtest --format jsonl "$dir" 2>/dev/null)" || { echo "| $name | error | | | |"; continue; }
  python3 - "$name" "$out" <<'PY'
import json, sys
name, out = sys.argv[1], sys.argv[2]
rows = [json.loads(l) for l in out.splitlines() if l.strip()]
s = rows[-1]
if s["sessions"] < 2:
    sys.exit(0)
lessons = sorted({r["lesson"] for r in rows[:-1]})
rep = f'{s["repeated"]}' + (f' ({", ".join("`%s`" % l for l in lessons)})' if lessons else "")
print(f'| {name} | {s["sessions"]} | {s["created"]} | {rep} | {s["recalled"]} |')
PY
done
