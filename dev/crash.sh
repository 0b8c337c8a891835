#!/usr/bin/env bash
# Crash safety: kill writers with SIGKILL at random moments and check that
# nothing is lost or corrupted.
#
#   dev/crash.sh [KILLS] [TOOL...]
#
# KILLS (default 200) kills per tool; TOOLs among write, reindex, dream,
# append (default all four). Binaries come from $MEM_BIN_DIR (default
# $CARGO_TARGET_DIR/debug, else target/debug); build them first:
#   cargo build -p mem-index -p mem-dream -p mem-transcript -p mem-lock
#
# After every kill:
#   - every topic file and MEMORY.md parses (mem-index check reports no
#     `parse` finding, mem-index list succeeds);
#   - every record acknowledged on stdout before the kill is on disk;
#   - the transcript replays with at most one torn line, and the next append
#     starts on a new line;
#   - the next run of the same command completes and leaves no temp file
#     (.mem-*.tmp, .consolidate-lock.*.tmp);
#   - the consolidation lock is reclaimable (mem-lock acquire works).
# Then: write failures under `prlimit --fsize` and on a read-only directory
# give a clear error and leave the old files intact.
#
# Prints one summary line per tool; exits 1 on the first violated invariant
# (the work directory is kept and named).
#
# A tool to run by hand (at full size, or on a build of your own); no test
# runs it. The tests check the same in Rust with small counts:
# tests/tests/crash.rs (cargo nextest run -p mem-tests --run-ignored all
# -E 'binary(crash)').
set -euo pipefail
cd "$(dirname "$0")/.."

KILLS=${1:-200}
shift || true
TOOLS=("$@")
[ ${#TOOLS[@]} -eq 0 ] && TOOLS=(write reindex dream append)
BIN=${MEM_BIN_DIR:-${CARGO_TARGET_DIR:-target}/debug}
for b in mem-index mem-dream mem-transcript mem-lock; do
  [ -x "$BIN/$b" ] || { echo "crash.sh: $BIN/$b is not built" >&2; exit 1; }
done
BIN=$(cd "$BIN" && pwd)

W=$(mktemp -d "${TMPDIR:-/tmp}/mem-crash.XXXXXX")
export HOME="$W/home" TZ=UTC XDG_CACHE_HOME="$W/home/.cache"
unset MEM_MEMORY_DIR MEM_TODAY MEM_NOW MEM_DISABLE CLAUDE_CONFIG_DIR CLAUDE_CODE_DISABLE_AUTO_MEMORY
mkdir -p "$HOME"
M="$W/memory"
T="$W/transcripts"
mkdir -p "$M" "$T"

fail() {
  echo "crash.sh: FAIL: $*" >&2
  echo "crash.sh: work directory kept: $W" >&2
  exit 1
}

# ---------------------------------------------------------------- inputs
# records: $1 = batch tag, $2 = count
records() {
  local tag=$1 n=$2 i
  for ((i = 0; i < n; i++)); do
    printf '{"name":"Crash %s %d","description":"record %d of batch %s, written under kills","type":"feedback","triggers":["crash-%s","deploy"],"verified_at":"2026-07-%02d","fact":"Run the check before deploy %d of batch %s.","why":"batch %s","how":"Run it."}\n' \
      "$tag" "$i" "$i" "$tag" "$tag" $((i % 28 + 1)) "$i" "$tag" "$tag"
  done
}

# a Claude Code transcript with $2 exchanges into $1
transcript() {
  local f=$1 n=$2 i p=null
  : >"$f"
  for ((i = 1; i <= n; i++)); do
    printf '{"type":"user","uuid":"u%d","parentUuid":%s,"isSidechain":false,"sessionId":"s%s","cwd":"%s","entrypoint":"cli","timestamp":"2026-07-11T10:%02d:%02dZ","message":{"role":"user","content":"Never run the deploy twice in a row (%d). Always run make check before make deploy because the fixtures are generated."}}\n' \
      "$i" "$p" "$f" "$W/proj" $((i / 60 % 60)) $((i % 60)) "$i" >>"$f"
    p="\"u$i\""
  done
}

entry() { # one transcript entry for append
  printf '{"type":"user","uuid":"a%s","parentUuid":null,"isSidechain":false,"sessionId":"app","timestamp":"2026-07-11T11:00:00Z","message":{"role":"user","content":"appended entry %s %s"}}\n' "$1" "$1" "$2"
}

# ---------------------------------------------------------------- checks
check_memdir() { # $1 = context
  local out
  out=$("$BIN/mem-index" check --max-files 0 --format jsonl --memory-dir "$M" 2>&1) || true
  if grep -q '"code":"parse"' <<<"$out"; then
    fail "$1: a file does not parse: $(grep '"code":"parse"' <<<"$out" | head -3)"
  fi
  "$BIN/mem-index" list --format jsonl --memory-dir "$M" >/dev/null 2>"$W/list.err" ||
    fail "$1: mem-index list failed: $(cat "$W/list.err")"
  if [ -f "$M/MEMORY.md" ] && LC_ALL=C grep -qv '^- \[\|^WARNING\|^$' "$M/MEMORY.md"; then
    fail "$1: MEMORY.md has a line that is not an entry: $(LC_ALL=C grep -v '^- \[\|^WARNING\|^$' "$M/MEMORY.md" | head -2)"
  fi
}

check_acked() { # $1 = stdout of the killed write, $2 = context
  local p
  # every acknowledged record (a complete jsonl line) names the file that
  # holds it (for a duplicate: the file already holding the fact): it must exist
  while IFS= read -r p; do
    [ -f "$p" ] || fail "$2: acknowledged record's file $p is missing"
  done < <(grep '}$' "$1" | grep -o '"path":"[^"]*"' | sed 's/"path":"\(.*\)"/\1/' | sort -u)
}

check_no_temp() { # $1 = context
  local left
  left=$(find "$M" -name '.mem-*.tmp' -o -name '.consolidate-lock.*.tmp' | head -5)
  [ -z "$left" ] || fail "$1: temp files remain after the next run: $left"
}

check_lock() { # $1 = context
  "$BIN/mem-lock" acquire "$M/.consolidate-lock" >/dev/null 2>"$W/lock.err" ||
    fail "$1: the consolidation lock is not reclaimable: $(cat "$W/lock.err")"
  "$BIN/mem-lock" release "$M/.consolidate-lock" >/dev/null 2>&1 ||
    fail "$1: mem-lock release failed"
}

# the duration of one run of "$@" in ms (a pilot run, to pick kill moments)
duration_ms() {
  local s e
  s=$(date +%s%N)
  "$@" >/dev/null 2>&1 || true
  e=$(date +%s%N)
  echo $(((e - s) / 1000000 + 1))
}

# start "$@" (stdout to $OUT), kill it with SIGKILL after a random moment
# within 1.2 x $DUR ms; sets KILLED=1 when it was still running
OUT="$W/out"
kill_at_random() {
  local delay
  delay=$((RANDOM * DUR * 12 / 10 / 32768))
  # (a background job's stdin is /dev/null unless redirected on the job itself)
  "$@" <"${STDIN_FILE:-/dev/null}" >"$OUT" 2>"$W/err" &
  local pid=$!
  sleep "$((delay / 1000)).$(printf '%03d' $((delay % 1000)))"
  if kill -KILL "$pid" 2>/dev/null; then KILLED=1; else KILLED=0; fi
  wait "$pid" 2>/dev/null || true
}

populate() { # $1 = records (default 150)
  rm -rf "$M" && mkdir -p "$M"
  records base "${1:-150}" | "$BIN/mem-index" write --max-files 0 --memory-dir "$M" >/dev/null
  local i
  for ((i = 1; i <= 6; i++)); do transcript "$T/s$i.jsonl" 40; done
}

summary=()

# ---------------------------------------------------------------- write
crash_write() {
  populate
  records pilot 200 >"$W/batch.jsonl"
  DUR=$(duration_ms "$BIN/mem-index" write --line-buffered --format jsonl --max-files 0 --memory-dir "$M" "$W/batch.jsonl")
  local k killed=0 acked=0
  for ((k = 0; k < KILLS; k++)); do
    records "k$k" 200 >"$W/batch.jsonl"
    kill_at_random "$BIN/mem-index" write --line-buffered --format jsonl --max-files 0 --memory-dir "$M" "$W/batch.jsonl"
    killed=$((killed + KILLED))
    acked=$((acked + $(grep -c '"id"' "$OUT" || true)))
    check_memdir "write kill $k"
    check_acked "$OUT" "write kill $k"
    "$BIN/mem-index" write --format jsonl --max-files 0 --memory-dir "$M" "$W/batch.jsonl" >"$OUT" 2>"$W/err" ||
      fail "write kill $k: the next run failed: $(cat "$W/err")"
    [ "$(grep -c '"id"' "$OUT")" -ge 200 ] || fail "write kill $k: the next run did not write the batch"
    check_no_temp "write kill $k"
    check_memdir "write kill $k (after rerun)"
    check_lock "write kill $k"
    # back to the populated baseline, so every kill meets the same directory
    rm -f "$M"/crash-k"$k"-*.md
  done
  summary+=("write: $KILLS runs, $killed killed mid-run (pilot ${DUR} ms), $acked records acknowledged before a kill, all on disk")
}

# ---------------------------------------------------------------- reindex
crash_reindex() {
  populate
  DUR=$(duration_ms "$BIN/mem-index" reindex --memory-dir "$M")
  local k killed=0
  for ((k = 0; k < KILLS; k++)); do
    rm -f "$M/MEMORY.md"
    [ $((k % 2)) -eq 0 ] && printf -- '- [Stale](stale.md) - stale entry %d\n' "$k" >"$M/MEMORY.md"
    kill_at_random "$BIN/mem-index" reindex --memory-dir "$M"
    killed=$((killed + KILLED))
    check_memdir "reindex kill $k"
    "$BIN/mem-index" reindex --memory-dir "$M" >/dev/null 2>"$W/err" ||
      fail "reindex kill $k: the next run failed: $(cat "$W/err")"
    check_no_temp "reindex kill $k"
    check_lock "reindex kill $k"
  done
  summary+=("reindex: $KILLS runs, $killed killed mid-run (pilot ${DUR} ms)")
}

# ---------------------------------------------------------------- dream
crash_dream() {
  populate 40
  local dream=("$BIN/mem-dream" --force --now 2026-07-13T12:00:00Z --transcripts "$T" --max-files 0 --memory-dir "$M")
  DUR=$(duration_ms "${dream[@]}")
  local k killed=0
  for ((k = 0; k < KILLS; k++)); do
    # fresh material for every run: new duplicates and a new session
    records "d$((k % 7))" 20 | "$BIN/mem-index" write --max-files 0 --memory-dir "$M" >/dev/null 2>&1 || true
    touch "$T"/*.jsonl
    kill_at_random "${dream[@]}"
    killed=$((killed + KILLED))
    check_memdir "dream kill $k"
    check_lock "dream kill $k (before the next run)"
    local t0 t1
    t0=$(date +%s%N)
    "${dream[@]}" >/dev/null 2>"$W/err" || {
      local rc=$?
      fail "dream kill $k: the next run failed ($rc): $(cat "$W/err")"
    }
    t1=$(date +%s%N)
    DUR=$(((t1 - t0) / 1000000 + 1)) # aim the next kill within a run like this one
    check_no_temp "dream kill $k"
    check_memdir "dream kill $k (after rerun)"
    check_lock "dream kill $k"
    "$BIN/mem-dream" undo --memory-dir "$M" >/dev/null 2>&1 || true
    check_memdir "dream kill $k (after undo)"
  done
  summary+=("dream: $KILLS runs, $killed killed mid-run (pilot ${DUR} ms)")
}

# ---------------------------------------------------------------- append
crash_append() {
  local f="$W/append.jsonl" k killed=0 torn=0 i
  transcript "$f" 20
  : >"$W/entries.jsonl"
  for ((i = 0; i < 20000; i++)); do entry "$i" "$(printf 'x%.0s' {1..200})" >>"$W/entries.jsonl"; done
  DUR=$(duration_ms "$BIN/mem-transcript" append "$f" <"$W/entries.jsonl")
  for ((k = 0; k < KILLS; k++)); do
    STDIN_FILE="$W/entries.jsonl" kill_at_random "$BIN/mem-transcript" append "$f"
    killed=$((killed + KILLED))
    "$BIN/mem-transcript" verify "$f" >/dev/null 2>"$W/err" || true
    local bad
    bad=$(grep -c 'append.jsonl:[0-9]*:' "$W/err" || true)
    [ "$bad" -le 1 ] || fail "append kill $k: $bad bad lines (at most one torn line allowed): $(head -3 "$W/err")"
    [ "$bad" -eq 1 ] && torn=$((torn + 1))
    "$BIN/mem-transcript" replay "$f" >/dev/null 2>&1 || fail "append kill $k: replay failed"
    entry "next$k" y | "$BIN/mem-transcript" append "$f" >/dev/null 2>"$W/err" ||
      fail "append kill $k: the next append failed: $(cat "$W/err")"
    tail -n 1 "$f" | grep -q "^{\"type\":\"user\",\"uuid\":\"anext$k\"" ||
      fail "append kill $k: the next append did not start on its own line: $(tail -c 300 "$f")"
    # keep the file from growing without bound
    if [ "$(stat -c %s "$f")" -gt 20000000 ]; then transcript "$f" 20; fi
  done
  summary+=("append: $KILLS runs, $killed killed mid-run (pilot ${DUR} ms), $torn kills left a torn line (each healed by the next append)")
}

# ---------------------------------------------------------------- write failures
write_failures() {
  populate
  local before after
  "$BIN/mem-index" reindex --memory-dir "$M" >/dev/null
  before=$(cd "$M" && find . -path ./.mem -prune -o -type f -print | sort | xargs sha1sum)
  # 1. a file-size limit smaller than the batch's files
  records big 50 | sed 's/"fact":"/"fact":"'"$(printf 'y%.0s' {1..3000})"'/' >"$W/big.jsonl"
  records base 150 | sed 's/"fact":"/"fact":"'"$(printf 'z%.0s' {1..3000})"'/' >"$W/rewrite.jsonl"
  for input in big rewrite; do
    if prlimit --fsize=2048 "$BIN/mem-index" write --max-files 0 --memory-dir "$M" "$W/$input.jsonl" >/dev/null 2>"$W/err"; then
      fail "write under --fsize=2048 ($input) succeeded"
    fi
    grep -qi 'too large' "$W/err" || fail "write under --fsize ($input): unclear error: $(cat "$W/err")"
    cp "$W/err" "$W/fsize.err"
  done
  if prlimit --fsize=2048 "$BIN/mem-index" reindex --memory-dir "$M" >/dev/null 2>"$W/err"; then
    : # the index is smaller than the limit: fine
  fi
  after=$(cd "$M" && find . -path ./.mem -prune -o -type f -print | sort | xargs sha1sum)
  [ "$before" = "$after" ] || fail "write under --fsize changed old files: $(diff <(echo "$before") <(echo "$after") | head -5)"
  check_no_temp "fsize"
  summary+=("fsize: write (new and rewritten topics) under prlimit --fsize=2048 fails with: $(head -c 160 "$W/fsize.err" | tr '\n' ' ')")

  # 2. a read-only directory (a read-only bind mount when we may mount, else chattr +i)
  local how=""
  if mkdir -p "$W/ro" && mount --bind "$M" "$W/ro" 2>/dev/null && mount -o remount,bind,ro "$W/ro" 2>/dev/null; then
    how="read-only bind mount"
    local RO="$W/ro"
  elif chattr +i "$M" 2>/dev/null; then
    how="chattr +i"
    local RO="$M"
  else
    summary+=("read-only: neither a read-only bind mount nor chattr +i is available here (skipped)")
    return
  fi
  records ro 3 >"$W/ro.jsonl"
  local rc=0
  "$BIN/mem-index" write --max-files 0 --memory-dir "$RO" "$W/ro.jsonl" >/dev/null 2>"$W/err" || rc=$?
  local msg1 rc2=0
  msg1=$(head -c 200 "$W/err" | tr '\n' ' ')
  "$BIN/mem-index" reindex --memory-dir "$RO" >/dev/null 2>"$W/err2" || rc2=$?
  local rc3=0
  "$BIN/mem-dream" --force --now 2026-07-13T12:00:00Z --transcripts "$T" --memory-dir "$RO" >/dev/null 2>"$W/err3" || rc3=$?
  if [ "$how" = "chattr +i" ]; then chattr -i "$M"; else umount "$W/ro"; fi
  [ "$rc" -ne 0 ] || fail "write on a read-only dir ($how) succeeded"
  grep -qi 'read-only\|permission\|not permitted' "$W/err" || fail "write on a read-only dir: unclear error: $msg1"
  after=$(cd "$M" && find . -path ./.mem -prune -o -type f -print | sort | xargs sha1sum)
  [ "$before" = "$after" ] || fail "write on a read-only dir changed old files"
  summary+=("read-only ($how): write exit $rc: $msg1; reindex exit $rc2; dream --force exit $rc3: $(head -c 160 "$W/err3" | tr '\n' ' ')")
}

for t in "${TOOLS[@]}"; do
  case $t in
    write) crash_write ;;
    reindex) crash_reindex ;;
    dream) crash_dream ;;
    append) crash_append ;;
    failures) ;;
    *) echo "crash.sh: unknown tool $t (write, reindex, dream, append, failures)" >&2; exit 2 ;;
  esac
done
write_failures
for s in "${summary[@]}"; do echo "$s"; done
rm -rf "$W"
echo "crash.sh: all invariants held"
