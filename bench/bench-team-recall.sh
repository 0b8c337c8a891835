#!/usr/bin/env bash
# Recall with a team tier: whole-process latency of `mem-recall --task …`
# over a 200-memory personal directory plus a 200-memory team tier
# (`<project>/.claude/team-memory/`), next to the same personal directory
# alone (`--tier personal`), in the same run (hyperfine, warm caches,
# median of many runs). The UserPromptSubmit hook is measured the same way
# (through `sh -c '… < input'` on both sides, the personal-only side in a
# project without a team folder, so the shell's cost is on both sides). The ratio both/personal is the number to read.
#
# usage: bench/bench-team-recall.sh [N_PERSONAL] [N_TEAM]   (default: 200 200)
# env:   MEM_RECALL_BIN   the binary (default: builds a release one)
#        MEM_HOOK_BIN     the hook (default: mem-hook beside it)
#        RUNS             runs per command (default 50)
set -euo pipefail
cd "$(dirname "$0")/.."

for t in hyperfine python3; do
  command -v "$t" >/dev/null 2>&1 || { echo "bench-team-recall: $t is missing" >&2; exit 1; }
done

bin=${MEM_RECALL_BIN:-}
if [ -z "$bin" ]; then
  bin="$(scripts/build-release.sh -q -p mem-recall -p mem-hook)/mem-recall"
fi
# the team tier is recalled only once trusted (mem-index team trust)
idx=${MEM_INDEX_BIN:-"$(dirname "$bin")/mem-index"}
hook=${MEM_HOOK_BIN:-"$(dirname "$bin")/mem-hook"}
if [ ! -x "$idx" ]; then
  idx="$(scripts/build-release.sh -q -p mem-index)/mem-index"
fi
runs=${RUNS:-50}
np=${1:-200}
nt=${2:-200}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME="$work/cache" CLAUDE_CONFIG_DIR="$work/claude" HOME="$work/home"
mkdir -p "$HOME"

gen() { # DIR N PREFIX SEED: N topic files; about 1 in 50 mentions "postgres"
  python3 dev/gen-memory-dir.py "$1" "$2" "$3" "$4"
}

proj="$work/proj"          # outside git: the project root is the folder itself
mem="$work/mem"
gen "$mem" "$np" personal 7
gen "$proj/.claude/team-memory" "$nt" team 11
task="check the postgres migration"
# trusted as generated: each recall then reads and digests every team file
# (docs/team-memory.md "Trust"), part of what is measured
"$idx" team trust --cwd "$proj" >/dev/null 2>&1
proj0="$work/proj0"        # the same without a team tier (for the hook)
mkdir -p "$proj0"
for p in proj proj0; do
  printf '{"session_id":"s","cwd":"%s","hook_event_name":"UserPromptSubmit","prompt":"%s"}' \
    "$work/$p" "$task" >"$work/hook${p#proj}.json"
done

median_ms() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; print(" ".join("%.3f" % (x["median"]*1000) for x in r))' "$1"; }
hf() { # OUT.json CMD_A CMD_B (shell strings)
  local out=$1; shift
  hyperfine -w 5 -r "$runs" -N --export-json "$out" "$@" >/dev/null 2>&1 \
    || hyperfine -w 5 -r "$runs" --export-json "$out" "$@" >/dev/null 2>&1
}

args=(--memory-dir "$mem" --cwd "$proj" --task "$task" --today 2026-07-11 --format jsonl)
sleep 2                               # past the cache's racy window (load.rs RACY_SECS)
"$bin" "${args[@]}" >/dev/null        # builds both caches
MEM_MEMORY_DIR=$mem "$hook" <"$work/hook0.json" >/dev/null
recalled_both=$("$bin" "${args[@]}" | python3 -c 'import json,sys; print([json.loads(l) for l in sys.stdin][-1]["recalled"])')
recalled_personal=$("$bin" "${args[@]}" --tier personal | python3 -c 'import json,sys; print([json.loads(l) for l in sys.stdin][-1]["recalled"])')

q() { printf '%q ' "$@"; }
hf "$work/r.json" "$(q "$bin" "${args[@]}" --tier both)" "$(q "$bin" "${args[@]}" --tier personal)"
read -r rb rp < <(median_ms "$work/r.json")
hookcmd() { echo "sh -c $(printf '%q' "MEM_MEMORY_DIR=$mem $hook < $1 > /dev/null")"; }
hf "$work/h.json" "$(hookcmd "$work/hook.json")" "$(hookcmd "$work/hook0.json")"
read -r hb hp < <(median_ms "$work/h.json")
ratio() { python3 -c "import sys; print('%.2fx' % (float(sys.argv[1])/float(sys.argv[2])))" "$1" "$2"; }

echo "personal $np memories, team $nt memories; task: \"$task\"; median of $runs runs"
echo
printf '| what | %s personal + %s team | %s personal only | ratio |\n|---|---:|---:|---:|\n' "$np" "$nt" "$np"
printf '| mem-recall --task (jsonl) | %s ms | %s ms | %s |\n' "$rb" "$rp" "$(ratio "$rb" "$rp")"
printf '| mem-hook (UserPromptSubmit, via sh -c) | %s ms | %s ms | %s |\n' "$hb" "$hp" "$(ratio "$hb" "$hp")"
echo
echo "recalled: $recalled_both with both tiers, $recalled_personal personal only"
