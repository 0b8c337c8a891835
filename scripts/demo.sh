#!/usr/bin/env bash
# The main job: the whole write – recall – retire lifecycle.
#
#   scripts/demo.sh [--memory-dir DIR] [--task TEXT] [--cwd DIR]
#
# On your own Claude Code sessions of the project at --cwd (default: the
# working directory) when ~/.claude/projects/<slug>/ holds any, read-only;
# otherwise on the showcase sessions mem generates itself. Memory is written
# to a scratch directory unless --memory-dir is given; nothing else is
# written. Prints what each stage did and ends with the memory directory.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
memdir="" task="" cwd=$PWD
while [ $# -gt 0 ]; do
  case $1 in
    --memory-dir) memdir=$2; shift 2 ;;
    --task) task=$2; shift 2 ;;
    --cwd) cwd=$2; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "demo.sh: unknown argument: $1 (try --help)" >&2; exit 2 ;;
  esac
done

echo "== building the release binaries (2-3 minutes on 2 cores the first time, seconds after)"
bin=$("$here/scripts/build-release.sh" --bins -q)
export PATH="$bin:$PATH" MEM_BIN_DIR="$bin"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/mem-demo.XXXXXX")
[ -n "$memdir" ] || memdir="$scratch/memory"
mkdir -p "$memdir"

# Where are this project's sessions?
claude="${CLAUDE_CONFIG_DIR:-$HOME/.claude}"
sessions=()
if [ -d "$claude/projects" ]; then
  while IFS= read -r f; do sessions+=("$f"); done < <(
    mem-transcript ls --cwd "$cwd" --format jsonl 2>/dev/null \
      | sed -n 's/.*"path":"\([^"]*\)".*/\1/p' | head -50)
fi
if [ ${#sessions[@]} -gt 0 ]; then
  echo "== using ${#sessions[@]} of your own Claude Code sessions for $cwd (read-only)"
  [ -n "$task" ] || task="run the tests"
  extract_cwd=$cwd
else
  echo "== no Claude Code sessions for $cwd: generating the showcase sessions"
  echo "   (its scripted runs fail on purpose, FAIL below: a failure, its fix and the pass are what mem learns from)"
  "$here/scripts/showcase.sh" "$scratch/showcase" | sed 's/^/  /'
  for f in "$scratch/showcase/sessions"/*.jsonl; do sessions+=("$f"); done
  [ -n "$task" ] || task="run the build-token verification"
  extract_cwd="$scratch/showcase/run1"
fi

echo "== write: mem-transcript replay | mem-extract | mem-index write"
cand=0 created=0 updated=0 unchanged=0 dup=0
for s in "${sessions[@]}"; do
  if ! events=$(mem-transcript replay "$s" 2>/dev/null); then echo "  skipped $s (unreadable)"; continue; fi
  recs=$(printf '%s\n' "$events" | mem-extract --cwd "$extract_cwd" 2>/dev/null || true)
  [ -n "$recs" ] || continue
  cand=$((cand + $(printf '%s\n' "$recs" | grep -c .)))
  ops=$(printf '%s\n' "$recs" | mem-index write --memory-dir "$memdir" --max-files 0 --skip-invalid 2>/dev/null || true)
  created=$((created + $(printf '%s\n' "$ops" | grep -c '"op":"create"' || true)))
  updated=$((updated + $(printf '%s\n' "$ops" | grep -c '"op":"update"' || true)))
  unchanged=$((unchanged + $(printf '%s\n' "$ops" | grep -c '"op":"unchanged"' || true)))
  dup=$((dup + $(printf '%s\n' "$ops" | grep -c '"op":"duplicate"' || true)))
done
echo "  sessions read: ${#sessions[@]}; candidates: $cand; created $created, updated $updated, unchanged $unchanged, duplicates $dup"

echo "== the index (MEMORY.md, first 15 lines)"
head -15 "$memdir/MEMORY.md" 2>/dev/null | sed 's/^/  /' || echo "  (empty)"
mem-index check --memory-dir "$memdir" --format text 2>&1 | tail -3 | sed 's/^/  check: /' || true

echo "== recall for the task: $task"
mem-recall --memory-dir "$memdir" --task "$task" --format text --no-cache | sed 's/^/  /'

echo "== retire: what mem-dream would change (dry run)"
mem-dream --memory-dir "$memdir" --dry-run --force --transcripts "$scratch/none" 2>&1 | sed 's/^/  /' | head -30 || true

echo "memory directory: $memdir"
echo "on your own project: cd ~/src/your-project && $here/scripts/demo.sh (reads its Claude Code sessions, writes only to a scratch directory)"
