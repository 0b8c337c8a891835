#!/usr/bin/env bash
# The showcase, offline: a tiny project whose verification needs a generated,
# git-ignored fixture that only its setup command creates.
#
#   1. two independent runs without memory each fail the verification
#      (`result: exit=1` twice); their sessions are written as Claude Code
#      transcripts;
#   2. the lesson is written by the pipeline
#      (mem-transcript replay | mem-extract | mem-index write), next to a
#      one-time-state note with an expiry date said in the second session
#      (that the setup before the verification is slow until 2026-07-12);
#      each memory is listed with its description, the lesson first
#      (`Run sh setup.sh before sh build-token.sh: …`);
#   3. a fresh run recalls both before acting (`summary: 2 recalled, 0
#      evicted`), follows the lesson, and passes;
#   4. with --today past the expiry, the note is evicted (`EVICT`: the task
#      bears on it, so it is reported; never injected) and the lesson stays;
#   5. a run that has the memory on disk but skips recall fails again.
#
# Usage: scripts/showcase.sh [WORKDIR]
#   WORKDIR  where to build the project, sessions and memory (default: a new
#            temporary directory, removed at exit unless MEM_KEEP=1)
# Binaries: $MEM_BIN_DIR, else $CARGO_TARGET_DIR (default target)/release, else
# .../debug, else PATH.
# Prints one line per step: FAIL / PASS / RECALL / EVICT / summary / result
# (tests/tests/showcase.rs runs this script and checks those lines).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
bindir=${MEM_BIN_DIR:-}
if [ -z "$bindir" ]; then
  target=${CARGO_TARGET_DIR:-$here/target}
  case $target in /*) ;; *) target="$here/$target" ;; esac
  for d in "$target"/*-linux-gnu/release "$target/release" "$target/debug"; do
    if [ -x "$d/mem-recall" ] && [ -x "$d/mem-extract" ]; then bindir=$d; break; fi
  done
fi
mem() { local tool=$1; shift; if [ -n "$bindir" ]; then "$bindir/$tool" "$@"; else "$tool" "$@"; fi; }

if [ $# -ge 1 ]; then
  work=$1; mkdir -p "$work"
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/mem-showcase.XXXXXX")
  [ "${MEM_KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
fi
work=$(cd "$work" && pwd)
memdir="$work/memory"
sessions="$work/sessions"
mkdir -p "$sessions"
export TZ=UTC
unset MEM_MEMORY_DIR MEM_TODAY MEM_NOW MEM_DISABLE CLAUDE_CODE_DISABLE_AUTO_MEMORY

# The project template: `verify` (build-token) needs data/fixture.json,
# which is git-ignored and made only by `setup`.
template="$work/template"
mkdir -p "$template"
cat > "$template/setup.sh" <<'SH'
mkdir -p data && echo '{"token":"fixture"}' > data/fixture.json && echo "setup: wrote data/fixture.json"
SH
cat > "$template/build-token.sh" <<'SH'
if [ ! -f data/fixture.json ]; then
  echo "error: data/fixture.json not found (it is generated and git-ignored)" >&2
  exit 1
fi
echo "build-token: ok"
SH
printf 'data/\n' > "$template/.gitignore"

# A fresh clone of the project.
clone() { rm -rf "$1"; cp -r "$template" "$1"; }

# Transcript writer: Claude Code entries, appended with mem-transcript append.
# entry FILE TYPE UUID PARENT TS MESSAGE-JSON [EXTRA-JSON-FIELDS]
entry() {
  local file=$1 type=$2 uuid=$3 parent=$4 ts=$5 msg=$6 extra=${7:-}
  local p=null; [ -n "$parent" ] && p="\"$parent\""
  printf '{"parentUuid":%s,"isSidechain":false,"userType":"external","cwd":"%s","sessionId":"%s","version":"2.1.39","type":"%s","uuid":"%s","timestamp":"%s","message":%s%s}\n' \
    "$p" "$cwd" "$sid" "$type" "$uuid" "$ts" "$msg" "$extra" | mem mem-transcript append "$file" >/dev/null
}
json_str() { printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' | awk 'BEGIN{ORS=""} NR>1{print "\\n"} {print}'; }

# One agent run. MODE: no-memory | recall | skip-recall. Prints FAIL/PASS and
# returns the verification's exit status; writes the session transcript.
run_agent() {
  local n=$1 mode=$2 day=$3 note=${4:-}
  local proj="$work/run$n" file="$sessions/0000000$n-0000-4000-8000-00000000000$n.jsonl"
  sid="0000000$n-0000-4000-8000-00000000000$n"
  clone "$proj"; cwd=$proj
  rm -f "$file"
  local u=1 prev="" t="${day}T09:00:0"
  uid() { printf '1111111%s-1111-4111-8111-0000000000%02d' "$n" "$u"; }
  entry "$file" user "$(uid)" "$prev" "${t}0Z" '{"role":"user","content":"Run the build-token verification."}'; prev=$(uid); u=$((u+1))

  local followed=""
  if [ "$mode" = recall ]; then
    # Recall before acting, and follow what the recalled lesson says to run first.
    local md
    md=$(mem mem-recall --memory-dir "$memdir" --task "run the build-token verification" --today "$day" --format markdown --no-cache 2>/dev/null || true)
    followed=$(printf '%s\n' "$md" | grep -o 'Run `[^`]*` before' | head -1 | sed -e 's/^Run `//' -e 's/` before$//' || true)
  fi

  local status=0 out
  (cd "$proj" && [ -z "$followed" ] || sh -c "$followed" >/dev/null 2>&1) || true
  out=$(cd "$proj" && sh build-token.sh 2>&1) || status=$?
  local tool="toolu_run${n}_verify"
  entry "$file" assistant "$(uid)" "$prev" "${t}1Z" "{\"id\":\"msg_${n}_1\",\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"$tool\",\"name\":\"Bash\",\"input\":{\"command\":\"sh build-token.sh\"}}]}"; prev=$(uid); u=$((u+1))
  entry "$file" user "$(uid)" "$prev" "${t}2Z" "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"$tool\",\"content\":\"$(json_str "$out")\",\"is_error\":$([ $status -eq 0 ] && echo false || echo true)}]}"; prev=$(uid); u=$((u+1))

  if [ $status -eq 0 ]; then
    echo "PASS run $n ($mode${followed:+, ran \`$followed\` first}): sh build-token.sh exit=0"
  else
    echo "FAIL run $n ($mode): sh build-token.sh exit=$status: $(printf '%s' "$out" | head -1)"
    if [ "$mode" = no-memory ]; then
      # The session goes on: the agent finds the fix by trial, as it would.
      local fix="toolu_run${n}_setup" again="toolu_run${n}_again" o2 o3
      o2=$(cd "$proj" && sh setup.sh 2>&1)
      entry "$file" assistant "$(uid)" "$prev" "${t}3Z" "{\"id\":\"msg_${n}_2\",\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"$fix\",\"name\":\"Bash\",\"input\":{\"command\":\"sh setup.sh\"}}]}"; prev=$(uid); u=$((u+1))
      entry "$file" user "$(uid)" "$prev" "${t}4Z" "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"$fix\",\"content\":\"$(json_str "$o2")\",\"is_error\":false}]}"; prev=$(uid); u=$((u+1))
      o3=$(cd "$proj" && sh build-token.sh 2>&1)
      entry "$file" assistant "$(uid)" "$prev" "${t}5Z" "{\"id\":\"msg_${n}_3\",\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"$again\",\"name\":\"Bash\",\"input\":{\"command\":\"sh build-token.sh\"}}]}"; prev=$(uid); u=$((u+1))
      entry "$file" user "$(uid)" "$prev" "${t}6Z" "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"$again\",\"content\":\"$(json_str "$o3")\",\"is_error\":false}]}"; prev=$(uid); u=$((u+1))
    fi
  fi
  if [ -n "$note" ]; then
    entry "$file" user "$(uid)" "$prev" "${t}7Z" "{\"role\":\"user\",\"content\":\"$(json_str "$note")\"}"; prev=$(uid); u=$((u+1))
  fi
  return $status
}

echo "== phase 1: two runs without memory"
rc1=0; run_agent 1 no-memory 2026-07-11 || rc1=$?
echo "result: exit=$rc1"
rc2=0; run_agent 2 no-memory 2026-07-11 "Heads up: the package mirror is slow until 2026-07-12, so the setup before the build-token verification may take a few minutes." || rc2=$?
echo "result: exit=$rc2"

echo "== phase 2: the write path (mem-transcript replay | mem-extract | mem-index write)"
for s in "$sessions"/*.jsonl; do
  mem mem-transcript replay "$s" | mem mem-extract --cwd "$work/run1" | mem mem-index write --memory-dir "$memdir" \
    | sed -e 's/^/  /'
done
mem mem-index list --memory-dir "$memdir" --format jsonl \
  | sed -e 's/^{"id":"\([^"]*\)".*"description":"\(\([^"\\]\|\\.\)*\)".*"kind":"\([^"]*\)".*/  memory \1 [\4]: \2/' -e '/^{/d'

echo "== phase 3: a fresh run recalls before acting (today 2026-07-11)"
mem mem-recall --memory-dir "$memdir" --task "run the build-token verification" --today 2026-07-11 --no-cache --format text
rc3=0; run_agent 3 recall 2026-07-11 || rc3=$?
echo "result: exit=$rc3"

echo "== phase 4: past the expiry (today 2026-07-13)"
mem mem-recall --memory-dir "$memdir" --task "run the build-token verification" --today 2026-07-13 --no-cache --format text
rc4=0; run_agent 4 recall 2026-07-13 || rc4=$?
echo "result: exit=$rc4"

echo "== phase 5: memory on disk, recall skipped"
rc5=0; run_agent 5 skip-recall 2026-07-13 || rc5=$?
echo "result: exit=$rc5"
echo "memory directory: $memdir"
