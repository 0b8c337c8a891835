#!/usr/bin/env bash
# Record what every tool prints on the shared corpus, cases and eval sets, so
# two builds can be compared file by file:
#
#   dev/record-outputs.sh BIN_DIR OUT_DIR
#   dev/record-outputs.sh /path/to/old/target/release /tmp/old
#   dev/record-outputs.sh target/release /tmp/new
#   diff -r /tmp/old /tmp/new
#
# BIN_DIR holds mem-transcript, mem-extract, mem-index, mem-recall, mem-dream
# and mem-lock (and mem-hook, whose help is recorded when it is there). The
# inputs come from $MEM_SHARED_DIR, else ../shared beside the project
# (corpus/, cases/, eval/). OUT_DIR is created (it must not exist, or be
# empty).
#
# Every command runs with HOME in a scratch directory, no inherited MEM_*,
# CLAUDE_*, CODEX_* or XDG_* variables, TZ=UTC, MEM_TODAY=2026-08-01 and
# MEM_NOW=2026-08-01T12:00:00Z, in the directory /, so its output depends
# only on its input.
# Each command gives OUT_DIR/<group>/<input>/<command>.out (stdout) and
# .err (stderr, then a last line `exit N`); the scratch directory and the
# shared directory are written as $WORK and $SHARED in both, so paths do not
# differ between runs. Memory directories the commands wrote are copied
# beside them (`*.memory/`, without the recall cache).
#
# What runs:
#   corpus/ and cases/ transcripts (*.jsonl): mem-transcript replay, tree,
#     verify, stats; replay | mem-extract; that | mem-index write into a
#     fresh memory directory, then mem-index list, check, mem-recall
#     --explain (no task, and one task) and mem-dream --dry-run on it
#   cases/ memory directories: mem-index list, check; mem-recall
#     --explain; mem-dream --dry-run
#   cases/ candidates and events (*.json[l] that are not transcripts):
#     mem-index write / mem-extract
#   eval/extract/*/session.jsonl: replay | mem-extract
#   eval/recall: mem-recall --explain for every labelled task (its --today
#     and --path), and `mem-recall context`
#   every tool's --help and each subcommand's --help
# Needs python3 (to read the labelled tasks).
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: dev/record-outputs.sh BIN_DIR OUT_DIR" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
BIN=$(cd "$1" && pwd) || { echo "record-outputs.sh: no directory $1" >&2; exit 2; }
for b in mem-transcript mem-extract mem-index mem-recall mem-dream mem-lock; do
  [ -x "$BIN/$b" ] || { echo "record-outputs.sh: $BIN/$b is not built" >&2; exit 2; }
done
SHARED=${MEM_SHARED_DIR:-$root/../shared}
[ -d "$SHARED" ] || { echo "record-outputs.sh: no shared directory at $SHARED (set MEM_SHARED_DIR)" >&2; exit 2; }
SHARED=$(cd "$SHARED" && pwd)
command -v python3 >/dev/null || { echo "record-outputs.sh: needs python3" >&2; exit 2; }
OUT=$2
if [ -e "$OUT" ] && [ -n "$(ls -A "$OUT")" ]; then
  echo "record-outputs.sh: $OUT exists and is not empty" >&2
  exit 2
fi
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/mem-record.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
for v in $(env | sed -n 's/^\(\(MEM\|CLAUDE\|CODEX\|XDG\)_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
export HOME="$WORK/home" TZ=UTC LC_ALL=C.UTF-8 XDG_CACHE_HOME="$WORK/home/.cache"
export MEM_TODAY=2026-08-01 MEM_NOW=2026-08-01T12:00:00Z
mkdir -p "$HOME/.claude" "$HOME/.codex" "$WORK/empty"
# The tools run in / (the same directory in every run: a session's project
# id can depend on the working directory).
cd /

# Replace the run's own paths in a file with stable names.
stable() {
  sed -i -e "s#$WORK#\$WORK#g" -e "s#$SHARED#\$SHARED#g" -e "s#$BIN#\$BIN#g" "$1"
}

# rec DEST STDIN TOOL ARGS...: run BIN/TOOL ARGS with STDIN (a file, or -
# for none), stdout to DEST.out, stderr and the exit status to DEST.err.
rec() {
  local dest=$1 in=$2 tool=$3 rc=0
  shift 3
  mkdir -p "$(dirname "$dest")"
  [ "$in" = - ] && in=/dev/null
  "$BIN/$tool" "$@" <"$in" >"$dest.out" 2>"$dest.err" || rc=$?
  echo "exit $rc" >>"$dest.err"
  stable "$dest.out"
  stable "$dest.err"
}

# keep DIR DEST: copy a memory directory the tools wrote (no cache).
keep() {
  [ -d "$1" ] || return 0
  mkdir -p "$2"
  (cd "$1" && find . -type f ! -path './.mem/*' ! -name '.consolidate-lock' -print0 |
    sort -z | xargs -0 -r cp --parents -t "$2")
  find "$2" -type f -exec sed -i -e "s#$WORK#\$WORK#g" -e "s#$SHARED#\$SHARED#g" {} +
}

# Is FILE a transcript (a Claude Code entry or a Codex rollout item)?
is_transcript() {
  head -c 4096 "$1" | grep -qE '"(parentUuid|sessionId|type":"(session_meta|response_item|event_msg))"'
}

# memdir_reads NAME DIR: what the readers say about a memory directory.
memdir_reads() {
  local d=$1 m=$2
  rec "$d/index-list" - mem-index list --format jsonl --memory-dir "$m"
  rec "$d/index-check" - mem-index check --format jsonl --memory-dir "$m"
  rec "$d/recall-no-task" - mem-recall --explain --no-cache --format jsonl --memory-dir "$m"
  rec "$d/recall-task" - mem-recall --explain --no-cache --format jsonl --memory-dir "$m" \
    --task "run the tests before the build and deploy"
}

# transcript_outputs DEST FILE: the readers and the write path on one file.
transcript_outputs() {
  local d=$1 f=$2
  rec "$d/replay" - mem-transcript replay --format jsonl "$f"
  rec "$d/tree" - mem-transcript tree --format jsonl "$f"
  rec "$d/verify" - mem-transcript verify --format jsonl "$f"
  rec "$d/stats" - mem-transcript stats --format jsonl "$f"
  rec "$d/extract" "$d/replay.out" mem-extract
  local m="$WORK/mem/${d#"$OUT"/}"
  mkdir -p "$m"
  rec "$d/index-write" "$d/extract.out" mem-index write --format jsonl --memory-dir "$m"
  memdir_reads "$d" "$m"
  local t="$WORK/sessions/${d#"$OUT"/}"
  mkdir -p "$t"
  cp "$f" "$t/"
  rec "$d/dream-dry-run" - mem-dream --force --dry-run --format jsonl --transcripts "$t" --memory-dir "$m"
  keep "$m" "$d/write.memory"
}

n=0
# ------------------------------------------------------------------ help
for tool in mem-transcript mem-extract mem-index mem-recall mem-hook mem-dream mem-lock; do
  [ -x "$BIN/$tool" ] || continue # mem-hook: not in builds before it
  rec "$OUT/help/$tool" - "$tool" --help
  for sub in $("$BIN/$tool" --help | sed -n '/^Commands:/,/^$/p' | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p' | grep -v '^help$'); do
    rec "$OUT/help/$tool-$sub" - "$tool" "$sub" --help
  done
done

# ------------------------------------------------------------------ corpus
while IFS= read -r -d '' f; do
  rel=${f#"$SHARED"/}
  transcript_outputs "$OUT/${rel%.jsonl}" "$f"
  n=$((n + 1))
done < <(find "$SHARED/corpus" -name '*.jsonl' -type f -print0 | sort -z)

# ------------------------------------------------------------------ cases
if [ -d "$SHARED/cases" ]; then
  while IFS= read -r -d '' f; do
    rel=${f#"$SHARED"/}
    if [ ! -s "$f" ] || is_transcript "$f"; then
      transcript_outputs "$OUT/${rel%.jsonl}" "$f"
    elif head -c 4096 "$f" | grep -q '"role"'; then
      rec "$OUT/${rel%.jsonl}/extract" "$f" mem-extract
    else
      m="$WORK/mem/$rel"
      mkdir -p "$m"
      rec "$OUT/${rel%.*}/index-write" "$f" mem-index write --format jsonl --memory-dir "$m"
      keep "$m" "$OUT/${rel%.*}/write.memory"
    fi
    n=$((n + 1))
  done < <(find "$SHARED/cases" -type f \( -name '*.jsonl' -o -name '*.json' \) -print0 | sort -z)
  while IFS= read -r -d '' d; do
    rel=${d#"$SHARED"/}
    m="$WORK/mem/$rel"
    mkdir -p "$m"
    cp -r "$d/." "$m/"
    chmod -R u+w "$m"
    memdir_reads "$OUT/$rel" "$m"
    rec "$OUT/$rel/dream-dry-run" - mem-dream --force --dry-run --format jsonl \
      --transcripts "$WORK/empty" --memory-dir "$m"
    n=$((n + 1))
  done < <(find "$SHARED/cases" -type d -name memory -print0 | sort -z)
fi

# ------------------------------------------------------------------ eval
if [ -d "$SHARED/eval/extract" ]; then
  while IFS= read -r -d '' f; do
    rel=${f#"$SHARED"/}
    d="$OUT/${rel%.jsonl}"
    rec "$d/replay" - mem-transcript replay --format jsonl "$f"
    rec "$d/extract" "$d/replay.out" mem-extract
    n=$((n + 1))
  done < <(find "$SHARED/eval/extract" -name session.jsonl -type f -print0 | sort -z)
fi
if [ -f "$SHARED/eval/recall/tasks.jsonl" ]; then
  m="$WORK/mem/eval-recall"
  mkdir -p "$m"
  cp -r "$SHARED/eval/recall/memory/." "$m/"
  chmod -R u+w "$m"
  i=0
  while IFS= read -r -d '' args; do
    i=$((i + 1))
    # args: NUL-free lines "task\ttoday\tpath..." from python below
    IFS=$'\t' read -r -a a <<<"$args"
    paths=()
    for p in "${a[@]:2}"; do paths+=(--path "$p"); done
    rec "$OUT/eval/recall/task-$(printf %03d $i)" - mem-recall --explain --no-cache --format jsonl \
      --memory-dir "$m" --task "${a[0]}" --today "${a[1]}" "${paths[@]}"
    n=$((n + 1))
  done < <(python3 -c '
import json, sys
for line in open(sys.argv[1], encoding="utf-8"):
    if not line.strip():
        continue
    t = json.loads(line)
    f = [t["task"], t.get("today", "2026-08-01")] + list(t.get("paths", []))
    sys.stdout.write("\t".join(x.replace("\t", " ") for x in f) + "\0")
' "$SHARED/eval/recall/tasks.jsonl")
  rec "$OUT/eval/recall/context" - mem-recall context --no-cache --memory-dir "$m" --task "run node src/build-token.mjs"
fi

echo "record-outputs.sh: $n inputs recorded in $OUT ($(find "$OUT" -type f | wc -l) files)"
