#!/usr/bin/env bash
# The CI memory job (examples/ci-memory.yml runs this script; so can you).
#
#   1. mem-index check            the memory directory is well-formed, within
#                                 its limits, and holds no secret or path;
#   2. the write path             each session under SESSIONS_DIR:
#                                 mem-transcript replay | mem-extract | mem-index write
#   3. mem-index check again      what was written passes the same lint.
#
# Usage: examples/ci-memory.sh [SESSIONS_DIR]
# Env: MEM_MEMORY_DIR (required: the memory directory the job keeps, e.g. a
# cached or committed folder), MEM_TODAY to pin the day. Without SESSIONS_DIR
# only the check runs. Exit: non-zero when any step fails.
set -euo pipefail

: "${MEM_MEMORY_DIR:?set MEM_MEMORY_DIR to the memory directory to check}"
mkdir -p "$MEM_MEMORY_DIR"
sessions=${1:-}

echo "== mem-index check"
mem-index check

if [ -n "$sessions" ]; then
  echo "== write path over $sessions"
  n=0
  while IFS= read -r f; do
    [ -n "$f" ] || continue
    mem-transcript replay --format jsonl "$f" | mem-extract | mem-index write --format text
    n=$((n + 1))
  done < <(mem-transcript ls --format jsonl --all "$sessions" \
             | sed -n 's/.*"path":"\(\([^"\\]\|\\.\)*\)".*/\1/p')
  echo "sessions: $n"
  echo "== mem-index check (after writing)"
  mem-index check
fi
echo "== memory job passed"
