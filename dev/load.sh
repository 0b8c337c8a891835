#!/usr/bin/env bash
# Load: concurrent writers, a consolidation and readers on one memory
# directory at the same time.
#
#   dev/load.sh [WRITERS] [RECORDS]        (default 8 500)
#
# WRITERS background processes each pipe RECORDS distinct memory records into
# `mem-index write` (LOAD_BATCH records per invocation, default 50, so the
# index is rebuilt many times; every batch after the first also updates the
# last record of the one before, so existing files are rewritten), while a loop runs
# `mem-dream --force --max-files 0` (with an empty transcript folder) until
# the writers are done (at least LOAD_DREAMS runs, default 3, then one final
# run on the quiet directory), and 2 reader loops run
# `mem-recall --format jsonl --no-cache` and `mem-index list --format jsonl`.
#
# Checked:
#   - every writer batch exits 0; every record is acknowledged (the
#     re-sent ones twice: create, then update);
#   - every reader run exits 0, prints only lines that parse as JSON and
#     nothing on stderr (a half-written topic file would show as a parse
#     warning or error);
#   - every dream run exits 0, or 1 because a file changed while it was
#     consolidating (then it wrote nothing: counted as a conflict);
#   - at the end every acknowledged id is a topic file with its own fact, or
#     was merged by a dream run (its survivor exists) or retired by one (the
#     file is under retired/): merged and retired are counted apart;
#   - `mem-index check --max-files 0` reports no error; every MEMORY.md entry
#     names an existing file, the index is within 200 lines / 25,000 bytes,
#     and entries + the WARNING's left-out count = the topic files;
#   - no temp file (.mem-*.tmp) remains.
#
# Binaries come from $MEM_BIN_DIR (default $CARGO_TARGET_DIR/debug, else
# target/debug); build them first:
#   cargo build -p mem-index -p mem-dream -p mem-recall
# Needs jq or python3 to check JSON. Prints a summary; the last line is
# `load: no loss, no reader failures, all invariants held` on success, else
# the script exits 1 naming what failed and keeps its work directory.
#
# A tool to run by hand (at full size, or on a build of your own); no test
# runs it. The tests check the same in Rust with small sizes:
# tests/tests/load.rs (cargo nextest run -p mem-tests --run-ignored all
# -E 'binary(load)').
set -euo pipefail
cd "$(dirname "$0")/.."

WRITERS=${1:-8}
RECORDS=${2:-500}
BATCH=${LOAD_BATCH:-50}
DREAMS=${LOAD_DREAMS:-3}
READERS=2
BIN=${MEM_BIN_DIR:-${CARGO_TARGET_DIR:-target}/debug}
for b in mem-index mem-dream mem-recall; do
  [ -x "$BIN/$b" ] || { echo "load.sh: $BIN/$b is not built" >&2; exit 1; }
done
BIN=$(cd "$BIN" && pwd)
if command -v jq >/dev/null 2>&1; then
  json_ok() { jq -e . >/dev/null 2>&1 <"$1"; }
elif command -v python3 >/dev/null 2>&1; then
  json_ok() {
    python3 -c 'import json,sys
for l in open(sys.argv[1], encoding="utf-8"):
    json.loads(l)' "$1" 2>/dev/null
  }
else
  echo "load.sh: needs jq or python3" >&2
  exit 1
fi

W=$(mktemp -d "${TMPDIR:-/tmp}/mem-load.XXXXXX")
export HOME="$W/home" TZ=UTC XDG_CACHE_HOME="$W/home/.cache" MEM_TODAY=2026-08-01
unset MEM_MEMORY_DIR MEM_NOW MEM_DISABLE MEM_REMOTE MEM_PER_WORKTREE CLAUDE_CONFIG_DIR CLAUDE_CODE_DISABLE_AUTO_MEMORY
M="$W/memory"
T="$W/transcripts"
mkdir -p "$HOME" "$M" "$T" "$W/acks" "$W/readers" "$W/dreams" "$W/fail"
cleanup_jobs() {
  local p
  for p in $(jobs -p); do kill "$p" 2>/dev/null || true; done
}
trap cleanup_jobs EXIT

fail() {
  echo "load.sh: FAIL: $*" >&2
  echo "load.sh: work directory kept: $W" >&2
  exit 1
}

# Record i of writer w: its id is load-w<w>-r<i>; description, fact and
# triggers are distinct per record, with no instruction polarity, relative
# date or task-state wording (nothing for a dream to merge, supersede,
# absolutize or retire).
fact_of() { echo "Port $((10000 + $1 * 1000 + $2)) serves the w$1r$2 endpoint."; }
record() { # $1 = writer, $2 = record, $3 = day of verified_at
  printf '{"name":"Load w%d r%d","description":"Writer %d record %d: endpoint w%dr%d listens on port %d","type":"feedback","fact":"%s","triggers":["load","w%d","w%dr%d"],"verified_at":"2026-07-%02d"}\n' \
    "$1" "$2" "$1" "$2" "$1" "$2" $((10000 + $1 * 1000 + $2)) "$(fact_of "$1" "$2")" "$1" "$1" "$2" "$3"
}
# A batch: records $2..$3 of writer $1, preceded (after the first batch) by
# the last record of the previous batch with a newer verified_at, so every
# batch also rewrites an existing topic file while the readers read it.
records() {
  local w=$1 i
  (($2 > 1)) && record "$w" $(($2 - 1)) 29
  for ((i = $2; i <= $3; i++)); do
    record "$w" "$i" $((i % 28 + 1))
  done
}

writer() { # $1 = writer
  local w=$1 i=1 last rc
  while ((i <= RECORDS)); do
    last=$((i + BATCH - 1))
    ((last > RECORDS)) && last=$RECORDS
    rc=0
    records "$w" "$i" "$last" |
      "$BIN/mem-index" write --max-files 0 --format jsonl --memory-dir "$M" \
        >>"$W/acks/$w.jsonl" 2>>"$W/acks/$w.err" || rc=$?
    echo "$i-$last $rc" >>"$W/acks/$w.batches"
    i=$((last + 1))
  done
}

reader() { # $1 = reader number
  local k=$1 n=0 rc kind out err
  out="$W/readers/$k.out"
  err="$W/readers/$k.err"
  while [ ! -e "$W/stop" ]; do
    n=$((n + 1))
    rc=0
    if ((n % 2)); then
      kind=recall
      "$BIN/mem-recall" --memory-dir "$M" --task "load the w$(((n / 2) % WRITERS + 1)) endpoint settings" \
        --format jsonl --no-cache >"$out" 2>"$err" || rc=$?
    else
      kind=list
      "$BIN/mem-index" list --memory-dir "$M" --format jsonl >"$out" 2>"$err" || rc=$?
    fi
    local why=""
    if [ "$rc" -ne 0 ]; then
      why="exit $rc"
    elif [ -s "$err" ]; then
      why="stderr: $(head -c 300 "$err")"
    elif [ "$kind" = recall ] && ! grep -q '"action":"summary"' "$out"; then
      why="no summary line"
    elif ! json_ok "$out"; then
      why="output does not parse"
    fi
    if [ -n "$why" ]; then
      echo "$kind FAIL $why" >>"$W/readers/$k.log"
      cp "$out" "$W/fail/reader$k.$n.out"
      cp "$err" "$W/fail/reader$k.$n.err"
    else
      echo "$kind ok $(wc -l <"$out")" >>"$W/readers/$k.log"
    fi
  done
}

dream_once() { # $1 = run number
  local n=$1 rc=0
  "$BIN/mem-dream" --force --memory-dir "$M" --transcripts "$T" --max-files 0 --format jsonl \
    >"$W/dreams/$n.out" 2>"$W/dreams/$n.err" || rc=$?
  echo "$rc" >"$W/dreams/$n.rc"
}

dreamer() {
  local n=0
  while :; do
    n=$((n + 1))
    dream_once "$n"
    if [ -e "$W/writers-done" ] && ((n >= DREAMS)); then break; fi
    sleep 1
  done
}

# ---------------------------------------------------------------- run
start=$(date +%s%N)
wpids=()
for ((w = 1; w <= WRITERS; w++)); do
  writer "$w" &
  wpids+=($!)
done
rpids=()
for ((k = 1; k <= READERS; k++)); do
  reader "$k" &
  rpids+=($!)
done
dreamer &
dpid=$!
for p in "${wpids[@]}"; do wait "$p"; done
wend=$(date +%s%N)
touch "$W/writers-done"
wait "$dpid"
touch "$W/stop"
for p in "${rpids[@]}"; do wait "$p"; done
# one last dream on the quiet directory
nd=$(ls "$W/dreams" | grep -c '\.rc$' || true)
dream_once $((nd + 1))
end=$(date +%s%N)

# ---------------------------------------------------------------- writers
problems=()
bad_batches=$(cat "$W"/acks/*.batches | awk '$2 != 0' | wc -l)
batches=$(cat "$W"/acks/*.batches | wc -l)
((bad_batches == 0)) || problems+=("$bad_batches writer batches failed: $(cat "$W"/acks/*.err | head -3)")
cat "$W"/acks/*.jsonl >"$W/acks.jsonl"
json_ok "$W/acks.jsonl" || problems+=("an acknowledgement does not parse")
acked=$(wc -l <"$W/acks.jsonl")
n_create=$(grep -c '"op":"create"' "$W/acks.jsonl" || true)
n_update=$(grep -c '"op":"update"' "$W/acks.jsonl" || true)
n_unchanged=$(grep -c '"op":"unchanged"' "$W/acks.jsonl" || true)
grep -o '"id":"[^"]*"' "$W/acks.jsonl" | sed 's/"id":"\(.*\)"/\1/' | sort -u >"$W/acked.ids"
acked_ids=$(wc -l <"$W/acked.ids")
((acked_ids == WRITERS * RECORDS)) ||
  problems+=("$acked_ids distinct ids acknowledged, expected $((WRITERS * RECORDS))")

# ---------------------------------------------------------------- dreams
d_runs=0 d_applied=0 d_nothing=0 d_conflict=0 d_failed=0
: >"$W/plans.jsonl"
for rcf in "$W"/dreams/*.rc; do
  n=$(basename "$rcf" .rc)
  rc=$(cat "$rcf")
  d_runs=$((d_runs + 1))
  if [ "$rc" -eq 0 ]; then
    if grep -q 'nothing to change' "$W/dreams/$n.err"; then
      d_nothing=$((d_nothing + 1))
    else
      d_applied=$((d_applied + 1))
      cat "$W/dreams/$n.out" >>"$W/plans.jsonl"
    fi
  elif [ "$rc" -eq 1 ] && grep -q 'changed while consolidating' "$W/dreams/$n.err"; then
    d_conflict=$((d_conflict + 1))
  else
    d_failed=$((d_failed + 1))
    problems+=("dream run $n exited $rc: $(head -c 300 "$W/dreams/$n.err")")
  fi
done
json_ok "$W/plans.jsonl" || problems+=("a dream plan line does not parse")

# merged id -> survivor, retired ids (from the plans of applied runs)
declare -A survivor=() retired=()
while IFS= read -r line; do
  to=$(sed -n 's/.*"op":"merge","id":"\([^"]*\)".*/\1/p' <<<"$line")
  for f in $(sed -n 's/.*"from":\[\([^]]*\)\].*/\1/p' <<<"$line" | tr ',"' '  '); do
    survivor[$f]=$to
  done
done < <(grep '"op":"merge"' "$W/plans.jsonl")
while IFS= read -r id; do
  retired[$id]=1
done < <(grep '"op":"retire"' "$W/plans.jsonl" | sed -n 's/.*"id":"\([^"]*\)".*/\1/p')

# ---------------------------------------------------------------- on disk
on_disk=0 merged=0 retired_n=0 lost=0 wrong=0
lost_ids=()
"$BIN/mem-index" list --memory-dir "$M" --format jsonl >"$W/final-list.jsonl" 2>"$W/final-list.err" ||
  problems+=("final mem-index list failed: $(head -c 300 "$W/final-list.err")")
declare -A fact=()
if command -v jq >/dev/null 2>&1; then
  while IFS=$'\t' read -r id f; do fact[$id]=$f; done < <(jq -r '[.id, (.fact // "")] | @tsv' "$W/final-list.jsonl")
else
  while IFS=$'\t' read -r id f; do fact[$id]=$f; done < <(python3 -c 'import json,sys
for l in open(sys.argv[1], encoding="utf-8"):
    r = json.loads(l); print(r["id"] + "\t" + (r.get("fact") or ""))' "$W/final-list.jsonl")
fi
while IFS= read -r id; do
  if [ -f "$M/$id.md" ]; then
    on_disk=$((on_disk + 1))
    if [ -z "${survivor[$id]:-}" ] && [[ $id =~ ^load-w([0-9]+)-r([0-9]+)$ ]]; then
      want=$(fact_of "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}")
      if [ "${fact[$id]:-}" != "$want" ]; then
        wrong=$((wrong + 1))
        ((wrong <= 3)) && problems+=("$id.md does not hold its fact: '${fact[$id]:-<not listed>}'")
      fi
    fi
    continue
  fi
  s=$id hops=0
  while [ -n "${survivor[$s]:-}" ] && [ ! -f "$M/$s.md" ] && ((hops < 50)); do
    s=${survivor[$s]}
    hops=$((hops + 1))
  done
  if [ "$s" != "$id" ] && [ -f "$M/$s.md" ]; then
    merged=$((merged + 1))
  elif [ -n "${retired[$id]:-}" ] && compgen -G "$M/retired/$id*.md" >/dev/null; then
    retired_n=$((retired_n + 1))
  else
    lost=$((lost + 1))
    lost_ids+=("$id")
  fi
done <"$W/acked.ids"
((lost == 0)) || problems+=("$lost acknowledged records lost: ${lost_ids[*]:0:10}")

# ---------------------------------------------------------------- readers
r_runs=0 r_fail=0 r_recall=0 r_list=0
for f in "$W"/readers/*.log; do
  [ -f "$f" ] || continue
  r_runs=$((r_runs + $(wc -l <"$f")))
  r_fail=$((r_fail + $(grep -c ' FAIL ' "$f" || true)))
  r_recall=$((r_recall + $(grep -c '^recall ok' "$f" || true)))
  r_list=$((r_list + $(grep -c '^list ok' "$f" || true)))
done
((r_fail == 0)) || problems+=("$r_fail reader runs failed: $(grep -h ' FAIL ' "$W"/readers/*.log | head -3)")
((r_recall > 0 && r_list > 0)) || problems+=("the readers did not complete a run of each kind")

# ---------------------------------------------------------------- index
topics=$(find "$M" -maxdepth 1 -name '*.md' ! -name MEMORY.md | wc -l)
"$BIN/mem-index" check --max-files 0 --memory-dir "$M" --format jsonl >"$W/check.jsonl" 2>"$W/check.err" ||
  problems+=("mem-index check exited non-zero")
check_err=$(grep -c '"level":"error"' "$W/check.jsonl" || true)
check_warn=$(grep -c '"level":"warning"' "$W/check.jsonl" || true)
((check_err == 0)) || problems+=("mem-index check: $check_err errors: $(grep '"level":"error"' "$W/check.jsonl" | head -3)")
idx_lines=0 idx_bytes=0 entries=0 left=0 of=$topics missing=0
if [ -f "$M/MEMORY.md" ]; then
  idx_lines=$(wc -l <"$M/MEMORY.md")
  idx_bytes=$(wc -c <"$M/MEMORY.md")
  while IFS= read -r file; do
    entries=$((entries + 1))
    [ -f "$M/$file" ] || { missing=$((missing + 1)); ((missing <= 3)) && problems+=("MEMORY.md names $file, which does not exist"); }
  done < <(sed -n 's/^- \[.*\](\([^)]*\)).*/\1/p' "$M/MEMORY.md")
  if w=$(grep -m1 '^WARNING:' "$M/MEMORY.md"); then
    left=$(sed -n 's/^WARNING: \([0-9]*\) of \([0-9]*\) .*/\1/p' <<<"$w")
    of=$(sed -n 's/^WARNING: \([0-9]*\) of \([0-9]*\) .*/\2/p' <<<"$w")
  fi
else
  ((topics == 0)) || problems+=("no MEMORY.md for $topics topic files")
fi
((idx_lines <= 200 && idx_bytes <= 25000)) || problems+=("MEMORY.md over the limits: $idx_lines lines, $idx_bytes bytes")
((entries + left == topics && of == topics)) ||
  problems+=("index inconsistent with the files: $entries entries + $left left out (of $of) != $topics topic files")
temps=$(find "$M" -name '.mem-*.tmp' | wc -l)
((temps == 0)) || problems+=("$temps temp files remain: $(find "$M" -name '.mem-*.tmp' | head -3)")

# ---------------------------------------------------------------- summary
ms() { echo "$(($1 / 1000000000)).$(($1 / 100000000 % 10))"; }
echo "load: $WRITERS writers x $RECORDS records (batches of $BATCH: $batches invocations, $bad_batches failed) in $(ms $((wend - start))) s"
echo "load: acknowledged $acked ($n_create create, $n_update update, $n_unchanged unchanged; $acked_ids distinct ids)"
echo "load: on disk $on_disk (fact checked, $wrong wrong), merged by dream $merged, retired by dream $retired_n, lost $lost"
echo "load: readers: $r_runs runs ($r_recall recall, $r_list list ok), $r_fail failures"
echo "load: dream: $d_runs runs ($d_applied applied, $d_nothing nothing to change, $d_conflict conflict: file changed while consolidating, $d_failed failed)"
echo "load: index: $topics topic files, MEMORY.md $idx_lines lines / $idx_bytes bytes, $entries entries + $left left out, $missing missing; check: $check_err errors, $check_warn warnings; temp files: $temps"
echo "load: wall time $(ms $((end - start))) s"
if ((${#problems[@]} > 0)); then
  for p in "${problems[@]}"; do echo "load.sh: FAIL: $p" >&2; done
  echo "load.sh: work directory kept: $W" >&2
  exit 1
fi
echo "load: no loss, no reader failures, all invariants held"
rm -rf "$W"
