#!/usr/bin/env bash
# Benchmark of mem-index: `write` and `list` speed for 200 and 10,000 records.
# Usage: bench/bench-index.sh [SIZES...]   (default: 200 10000)
# Builds the release binary (CARGO_TARGET_DIR honoured), generates records in a
# temp dir, and prints records/s for: write into an empty dir, write the same
# batch again (all unchanged), list.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sizes=("$@"); [ ${#sizes[@]} -eq 0 ] && sizes=(200 10000)
bin="$("$root/scripts/build-release.sh" -q -p mem-index)/mem-index"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
export MEM_TODAY=2026-07-13
now() { date +%s.%N; }
rate() { python3 -c "import sys; n,a,b=int(sys.argv[1]),float(sys.argv[2]),float(sys.argv[3]); print(f'{b-a:8.3f} s {n/(b-a):10.0f} records/s')" "$@"; }
printf '%-8s %-22s %s\n' records step result
for n in "${sizes[@]}"; do
  python3 - "$n" > "$work/in-$n.jsonl" <<'PY'
import json, sys
n = int(sys.argv[1])
for i in range(n):
    print(json.dumps({"name": f"Bench memory {i:05d}", "description": f"Benchmark fact number {i} about the build",
        "type": ["user", "feedback", "project", "reference"][i % 4], "triggers": [f"bench-{i}", "build"],
        "verified_at": f"2026-07-{1 + i % 28:02d}", "fact": f"Fact {i}: run step {i} before step {i + 1}.",
        "why": "Because the benchmark says so.", "how": "Run it."}))
PY
  dir=$work/mem-$n
  a=$(now); "$bin" --memory-dir "$dir" write --max-files 0 < "$work/in-$n.jsonl" > /dev/null 2>"$work/err"; b=$(now)
  printf '%-8s %-22s %s\n' "$n" "write (create)" "$(rate "$n" "$a" "$b")"
  a=$(now); "$bin" --memory-dir "$dir" write --max-files 0 < "$work/in-$n.jsonl" > /dev/null 2>"$work/err"; b=$(now)
  printf '%-8s %-22s %s\n' "$n" "write (unchanged)" "$(rate "$n" "$a" "$b")"
  a=$(now); "$bin" --memory-dir "$dir" list > "$work/list-$n.jsonl"; b=$(now)
  printf '%-8s %-22s %s\n' "$n" "list" "$(rate "$n" "$a" "$b")"
  got=$(wc -l < "$work/list-$n.jsonl"); [ "$got" -eq "$n" ] || { echo "list gave $got of $n"; exit 1; }
  lines=$(wc -l < "$dir/MEMORY.md"); bytes=$(wc -c < "$dir/MEMORY.md")
  printf '%-8s %-22s %s\n' "$n" "MEMORY.md" "$lines lines, $bytes bytes"
done
