#!/usr/bin/env bash
# Benchmark of the team tier's git merge driver (docs/team-memory.md) on a
# tier of N memories (default 2000), each against a baseline in the same run:
#   1. `git merge` of two branches that each added 50 memories and edited the
#      same 20 topic files (triggers, verified_at; 5 bodies), with the mem
#      driver  vs  the same merge with a driver that does nothing (`true`):
#      what the driver adds to a real merge;
#   2. the MEMORY.md driver call alone (it merges every topic file of the tier
#      from the three commits and renders the index)  vs  `git merge-file
#      --union` of the same three MEMORY.md files;
#   3. one topic-file driver call  vs  `git merge-file --union` of it.
# Usage: bench/bench-team.sh [N]   (RUNS=5 by default; uses farm-bench when
# present, else hyperfine). Builds the release binary (CARGO_TARGET_DIR honoured).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-2000}
runs=${RUNS:-5}
bin="$("$root/scripts/build-release.sh" -q -p mem-index)/mem-index"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
export HOME=$work GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
repo=$work/repo
git init -q -b main "$repo"
cd "$repo"
"$bin" merge-driver --install > /dev/null
tier=.claude/team-memory

gen() { # gen FIRST COUNT TAG: COUNT new topic files
  python3 - "$tier" "$@" <<'PY'
import sys
tier, first, count, tag = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
types = ["user", "feedback", "project", "reference"]
for i in range(first, first + count):
    with open(f"{tier}/bench-{tag}-{i:05d}.md", "w") as f:
        f.write(f'---\nname: "Bench {tag} {i}"\ndescription: "benchmark fact {i} about the build"\n'
                f'type: {types[i % 4]}\ntriggers: ["bench-{i}", "build"]\nverified_at: 2026-07-{1 + i % 28:02d}\n'
                f'---\nFact: run step {i} before step {i + 1}.\n')
PY
}
edit() { # edit SIDE DAY: the same 20 files, new trigger and date; 5 bodies
  python3 - "$tier" "$@" <<'PY'
import re, sys
tier, side, day = sys.argv[1:]
for i in range(20):
    p = f"{tier}/bench-base-{i * 7:05d}.md"
    t = open(p).read()
    t = t.replace('"build"]', f'"build", "{side}"]', 1)
    t = re.sub(r"verified_at: 2026-07-[0-9]+", f"verified_at: 2026-08-{day}", t, count=1)
    if i < 5:
        t = t.replace(".\n", f", says {side}.\n", 1)
    open(p, "w").write(t)
PY
}
gen 0 "$n" base
"$bin" reindex --tier team > /dev/null 2>&1
git add -A && git commit -qm base
git checkout -q -b theirs
gen 0 50 theirs; edit theirs 02
"$bin" reindex --tier team > /dev/null 2>&1
git add -A && git commit -qm theirs
git checkout -q main
gen 0 50 ours; edit ours 01
"$bin" reindex --tier team > /dev/null 2>&1
git add -A && git commit -qm ours
ours=$(git rev-parse HEAD); theirs=$(git rev-parse theirs); base=$(git merge-base HEAD theirs)

# the merge, once, checked
git merge -q --no-edit theirs > /dev/null 2>&1
"$bin" check --tier team > /dev/null || { echo "check --tier team failed after the merge"; exit 1; }
if grep -rqE '^(<<<<<<<|>>>>>>>)' "$tier"; then echo "conflict markers after the merge"; exit 1; fi
files=$(ls "$tier"/*.md | grep -vc MEMORY.md)
echo "tier after the merge: $files topic files, MEMORY.md $(wc -l < "$tier/MEMORY.md") lines; check --tier team: clean"
git reset -q --hard "$ours"

p=$tier/MEMORY.md
git show "$base:$p" > "$work/O"; git show "$ours:$p" > "$work/A0"; git show "$theirs:$p" > "$work/B"
t=$tier/bench-base-00000.md
git show "$base:$t" > "$work/to"; git show "$ours:$t" > "$work/ta0"; git show "$theirs:$t" > "$work/tb"

bench() { # bench NAME CMD_A CMD_B
  echo "== $1"
  if command -v farm-bench > /dev/null; then
    farm-bench -n "$runs" --timeout 600 --vs "$3" -- sh -c "$2"
  else
    hyperfine -N -r "$runs" "sh -c '$2'" "sh -c '$3'"
  fi
}
bench "git merge, $n memories (+50 +50, 20 edited on both sides): mem driver vs a no-op driver" \
  "git reset -q --hard $ours && exec git merge -q --no-edit $theirs" \
  "sh -c 'git reset -q --hard $ours && exec git -c merge.mem.driver=true merge -q --no-edit $theirs'"
git reset -q --hard "$ours"
export "GITHEAD_$theirs=theirs"
bench "MEMORY.md driver call ($n-memory tier) vs git merge-file --union" \
  "cp $work/A0 $work/A && exec $bin merge-driver $work/O $work/A $work/B $p" \
  "sh -c 'cp $work/A0 $work/A && exec git merge-file --union $work/A $work/O $work/B'"
bench "one topic-file driver call vs git merge-file --union" \
  "cp $work/ta0 $work/ta && exec $bin merge-driver $work/to $work/ta $work/tb $t" \
  "sh -c 'cp $work/ta0 $work/ta && exec git merge-file --union $work/ta $work/to $work/tb'"
