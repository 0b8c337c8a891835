#!/usr/bin/env bash
# Benchmark mem-dream on generated memory directories: N memories (default
# 1,000 and 10,000) of which 10 % are duplicates of another memory (same fact,
# other id and wording) and 2 % contradict another one (same subject, opposite
# instruction, newer). Measures wall time and peak memory (/usr/bin/time -v) of
# a full run, --dry-run and real, and prints the growth between sizes.
#
# Usage: bench/bench-dream.sh [N...]      (env BIN=path/to/mem-dream to skip the build)
#        BASE=path/to/old/mem-dream bench/bench-dream.sh 10000
#   With BASE, the same generated directories are also consolidated by the
#   baseline binary (each run on a fresh copy), and the ratio new/base printed;
#   the outputs must be byte-identical: the plan (jsonl), the --diff text and
#   the directory a real run leaves (its .mem/ journal aside) are compared,
#   and the script fails on any difference.
# On a busy machine, `chrt -f 10 bench/bench-dream.sh` (real-time priority)
# keeps other load out of the wall times; the CPU column (user + sys) is
# the figure to compare in any case.
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@"); [ ${#sizes[@]} -gt 0 ] || sizes=(1000 10000)
if [ -z "${BIN:-}" ]; then
  BIN="$(scripts/build-release.sh -p mem-dream)/mem-dream"
fi
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (GNU time)" >&2; exit 1; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
export HOME="$work/home" XDG_CACHE_HOME="$work/cache" CLAUDE_CONFIG_DIR="$work/home/.claude"
unset MEM_MEMORY_DIR MEM_DISABLE CLAUDE_CODE_DISABLE_AUTO_MEMORY MEM_REMOTE MEM_NOW MEM_TODAY

gen() { # gen DIR N
  python3 - "$1" "$2" <<'PY'
import os, sys, random
d, n = sys.argv[1], int(sys.argv[2])
os.makedirs(d, exist_ok=True)
rnd = random.Random(42)
nouns = "build deploy cache fixture token schema index queue worker mirror proxy lint test bench release docs api cli config secret".split()
dup, contra = n // 10, n // 50
base = n - dup - contra
facts = []
def write(i, desc, body, day, trig):
    with open(os.path.join(d, f"m{i:06d}.md"), "w") as f:
        f.write(f'---\nname: "m{i:06d}"\ndescription: "{desc}"\ntype: feedback\n'
                f'triggers: ["{trig}"]\nverified_at: 2026-01-{day:02d}\n---\n{body}\n')
for i in range(base):
    a, b, c = rnd.sample(nouns, 3)
    desc = f"Always run {a} {i} before {b} in {c}"
    body = f"Fact: the {a} step {i} must precede {b} because {c} reads its output.\nWhy: seen in session {i}."
    facts.append((desc, body, a))
    write(i, desc, body, 1 + i % 20, a)
i = base
for k in range(dup):                      # same fact, other wording (case, punctuation)
    desc, body, a = facts[rnd.randrange(base)]
    write(i, desc.upper() + ".", body.replace(".", " ."), 21 + k % 5, a + "-dup"); i += 1
for k in range(contra):                   # opposite instruction, newer
    desc, body, a = facts[(k * 7919) % base]
    write(i, desc.replace("Always", "Never"), "Fact: " + desc.replace("Always", "Never") + ".", 28, a); i += 1
lines = [f"- [m{j:06d}](m{j:06d}.md) - x" for j in range(min(n, 150))]
open(os.path.join(d, "MEMORY.md"), "w").write("\n".join(lines) + "\n")
PY
}

measure() { # measure ARGS... → "secs peakKB cpu"
  local out
  if ! /usr/bin/time -v -o "$work/time.txt" "$BIN" "$@" >/dev/null 2>"$work/stderr.txt"; then
    echo "mem-dream $* failed:" >&2; tail -5 "$work/stderr.txt" >&2; exit 1
  fi
  out=$(cat "$work/time.txt")
  local secs kb cpu
  secs=$(printf '%s\n' "$out" | awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,t,":"); s=0; for(i=1;i<=n;i++) s=s*60+t[i]; print s}')
  kb=$(printf '%s\n' "$out" | awk -F': ' '/Maximum resident set size/ {print $2}')
  cpu=$(printf '%s\n' "$out" | awk -F': ' '/User time|System time/ {s+=$2} END {printf "%.2f", s}')
  echo "$secs $kb $cpu"
}

same() { # same WHAT FILE_A FILE_B: fail unless byte-identical
  if ! cmp -s "$2" "$3"; then
    echo "bench-dream: $1 differs between base and new:" >&2
    diff "$2" "$3" | head -20 >&2
    exit 1
  fi
}

printf '%-8s %-8s %-8s %10s %8s %12s %8s %8s\n' memories binary mode seconds cpu_s peak_MiB merges supersedes
declare -A T
bins=(new); [ -n "${BASE:-}" ] && bins=(base new)
for n in "${sizes[@]}"; do
  src="$work/src$n"; gen "$src" "$n"
  plan=$("$BIN" --memory-dir "$src" --force --dry-run --max-files 0 --format jsonl 2>/dev/null)
  merges=$(grep -c '"op":"merge"' <<<"$plan" || true)
  sup=$(grep -c '"op":"supersede"' <<<"$plan" || true)
  if [ -n "${BASE:-}" ]; then
    for B in "$BASE" "$BIN"; do
      tag=new; [ "$B" = "$BASE" ] && tag=base
      "$B" --memory-dir "$src" --force --dry-run --max-files 0 --format jsonl >"$work/plan-$tag" 2>/dev/null
      "$B" --memory-dir "$src" --force --dry-run --max-files 0 --diff >"$work/diff-$tag" 2>/dev/null
    done
    same "the plan of $n memories" "$work/plan-base" "$work/plan-new"
    same "the --diff of $n memories" "$work/diff-base" "$work/diff-new"
  fi
  for which in "${bins[@]}"; do
    dir="$work/m$n-$which"; rm -rf "$dir"; cp -a "$src" "$dir"
    for mode in dry-run real; do
      extra=(--dry-run); [ "$mode" = real ] && extra=()
      B=$BIN; [ "$which" = base ] && B=$BASE
      read -r secs kb cpu < <(BIN=$B measure --memory-dir "$dir" --force --max-files 0 --format jsonl "${extra[@]}")
      T[$n,$which,$mode]=$secs
      printf '%-8s %-8s %-8s %10s %8s %12.1f %8s %8s\n' "$n" "$which" "$mode" "$secs" "$cpu" "$(echo "$kb/1024" | bc -l)" "$merges" "$sup"
    done
  done
  if [ -n "${BASE:-}" ]; then
    # what the real runs left, journal aside
    if ! diff -r -x .mem "$work/m$n-base" "$work/m$n-new" >/dev/null; then
      echo "bench-dream: the directories consolidated by base and new differ ($n memories)" >&2
      diff -r -x .mem "$work/m$n-base" "$work/m$n-new" | head -20 >&2
      exit 1
    fi
    echo "outputs of $n memories: plan, --diff and the consolidated directory identical to base"
  fi
  if [ -n "${BASE:-}" ]; then
    for mode in dry-run real; do
      printf 'ratio %s %s: new/base = %s\n' "$n" "$mode" \
        "$(echo "scale=2; ${T[$n,new,$mode]} / ${T[$n,base,$mode]}" | bc -l)"
    done
  fi
done
if [ ${#sizes[@]} -ge 2 ]; then
  a=${sizes[0]}; b=${sizes[-1]}
  for mode in dry-run real; do
    printf 'growth %s: %sx time for %sx memories\n' "$mode" \
      "$(echo "scale=1; ${T[$b,new,$mode]} / ${T[$a,new,$mode]}" | bc -l)" "$((b / a))"
  done
fi
