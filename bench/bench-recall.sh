#!/usr/bin/env bash
# Whole-process latency of `mem-recall --task …` next to `rg -l -i WORD DIR`
# on generated memory directories of 200, 1,000 and 10,000 topic files
# (median of many runs, hyperfine, warm cache). Targets: <= 3 ms at 200
# files; at 10,000 files no slower than ripgrep (1x). `mem-recall --version`
# and /bin/true are measured in the same run (process start-up floor).
#
# usage: bench/bench-recall.sh [SIZES...]      (default: 200 1000 10000)
# env:   MEM_RECALL_BIN   the binary (default: builds a release one)
#        MEM_RECALL_BASE  a second binary to compare against in the same run
#                         (its column and the ratio new/base are added)
#        RUNS             runs per command (default 50)
#        INSTRUCTIONS=1   also count instructions (perf stat, else valgrind) per size
#        ALTERNATE=1      run the commands in turn, run by run (a process each,
#                         median wall, mean user/system CPU) instead of in
#                         blocks: a change of the machine's state then moves
#                         every command alike, and the ratios hold
# On a busy machine, `chrt -f 10 bench/bench-recall.sh` (real-time priority)
# keeps other load out of the medians; compare ratios in any case.
set -euo pipefail
cd "$(dirname "$0")/.."

need() {
  command -v "$1" >/dev/null 2>&1 && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing $2 ..." >&2
    apt-get install -y -q "$2" >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get install -y -q "$2" >/dev/null; }
  fi
  command -v "$1" >/dev/null 2>&1 || { echo "bench-recall: $1 is missing (apt-get install $2)" >&2; exit 1; }
}
need hyperfine hyperfine
need rg ripgrep
need python3 python3

bin=${MEM_RECALL_BIN:-}
if [ -z "$bin" ]; then
  bin="$(scripts/build-release.sh -q -p mem-recall)/mem-recall"
fi
base=${MEM_RECALL_BASE:-}
runs=${RUNS:-50}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(200 1000 10000)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME="$work/cache" CLAUDE_CONFIG_DIR="$work/claude" HOME="$work/home"
mkdir -p "$HOME"

gen() { # DIR N: N topic files; about 1 in 50 mentions "postgres"
  python3 dev/gen-memory-dir.py "$1" "$2"
}

# FILE -> "median ± sd" in ms; FILE -> median in ms
stat_ms() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print("%.2f ± %.2f" % (r["median"]*1000, (r["stddev"] or 0)*1000))' "$1"; }
median_ms() { python3 -c 'import json,sys; print("%.3f" % (json.load(open(sys.argv[1]))["results"][0]["median"]*1000))' "$1"; }
ratio() { python3 -c "import sys; print('%.2fx' % (float(sys.argv[1])/float(sys.argv[2])))" "$1" "$2"; }
hf() { # OUT.json COMMAND...
  local out=$1; shift
  hyperfine -N -w 5 -r "$runs" --export-json "$out" "$(printf '%q ' "$@")" -i >/dev/null 2>&1
}
instr() { # COMMAND... -> user-space instructions (perf, else callgrind), or "-"
  local n=-
  if command -v perf >/dev/null 2>&1; then
    n=$(perf stat -x, -e instructions:u "$@" 2>&1 >/dev/null | awk -F, '/instructions/ {print $1}')
  fi
  if ! [[ "$n" =~ ^[0-9]+$ ]] && command -v valgrind >/dev/null 2>&1; then
    n=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null | awk '/Collected :/ {print $NF}')
  fi
  [[ "$n" =~ ^[0-9]+$ ]] || n=-
  echo "$n"
}

alternate() { # N DIR ARGS...: one table row, the commands run in turn
  local n=$1 dir=$2; shift 2
  python3 - "$runs" "$n" "$bin" "${base:-}" "$work" "$dir" "$@" <<'PY'
import os, statistics, sys, time
runs, n, binary, base, work, d = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]
args = sys.argv[7:]
env = lambda cache: dict(os.environ, XDG_CACHE_HOME=cache)
cmds = [("new", [binary] + args, env(f"{work}/cache"))]
if base:
    cmds.append(("base", [base] + args, env(f"{work}/cache-base")))
rg = next(os.path.join(p, "rg") for p in os.environ["PATH"].split(":") if os.access(os.path.join(p, "rg"), os.X_OK))
cmds.append(("rg", [rg, "-l", "-i", "postgres", d], dict(os.environ)))
null = os.open(os.devnull, os.O_WRONLY)
res = {c[0]: ([], [], []) for c in cmds}
for i in range(runs + 3):
    for name, argv, e in cmds[i % len(cmds):] + cmds[:i % len(cmds)]:
        t0 = time.perf_counter()
        pid = os.posix_spawn(argv[0], argv, e, file_actions=[(os.POSIX_SPAWN_DUP2, null, 1)])
        _, _, ru = os.wait4(pid, 0)
        if i >= 3:  # the first rounds warm up
            w, u, s = res[name]
            w.append((time.perf_counter() - t0) * 1000); u.append(ru.ru_utime * 1000); s.append(ru.ru_stime * 1000)
med = {k: statistics.median(v[0]) for k, v in res.items()}
cpu = lambda k: "%.1f+%.1f" % (statistics.mean(res[k][1]), statistics.mean(res[k][2]))
row = [n, "%.2f ms (%s)" % (med["new"], cpu("new"))]
if base:
    row += ["%.2f ms (%s)" % (med["base"], cpu("base")), "%.2fx" % (med["new"] / med["base"])]
row += ["%.2f ms (%s)" % (med["rg"], cpu("rg")), "%.2fx" % (med["new"] / med["rg"])]
print("| " + " | ".join(row) + " |")
PY
}

hf "$work/t.json" /bin/true
hf "$work/v.json" "$bin" --version
line="start-up: /bin/true $(stat_ms "$work/t.json") ms, mem-recall --version $(stat_ms "$work/v.json") ms"
if [ -n "$base" ]; then
  hf "$work/bv.json" "$base" --version
  line+=", base --version $(stat_ms "$work/bv.json") ms"
fi
echo "$line"
echo

if [ "${ALTERNATE:-0}" = 1 ]; then
  echo "alternating runs: median wall (mean user+system CPU ms)"
  if [ -n "$base" ]; then
    printf '| files | mem-recall | base | new/base | rg -l -i | ratio |\n|---:|---:|---:|---:|---:|---:|\n'
  else
    printf '| files | mem-recall | rg -l -i | ratio |\n|---:|---:|---:|---:|\n'
  fi
elif [ -n "$base" ]; then
  printf '| files | mem-recall median ± sd | base median ± sd | new/base | rg -l -i median | ratio | base ratio |\n|---:|---:|---:|---:|---:|---:|---:|\n'
else
  printf '| files | mem-recall median ± sd | rg -l -i median | ratio |\n|---:|---:|---:|---:|\n'
fi
notes=()
for n in "${sizes[@]}"; do
  dir="$work/mem-$n"
  gen "$dir" "$n"
  args=(--memory-dir "$dir" --task "check the postgres migration" --today 2026-07-11 --format jsonl)
  sleep 2                      # past the cache's racy window (load.rs RACY_SECS)
  "$bin" "${args[@]}" >/dev/null    # builds the cache
  if [ -n "$base" ]; then
    XDG_CACHE_HOME="$work/cache-base" "$base" "${args[@]}" >/dev/null
  fi
  # the generated files and caches written out before timing, so the
  # kernel's writeback of them does not run inside the measured calls
  sync
  if [ "${ALTERNATE:-0}" = 1 ]; then
    alternate "$n" "$dir" "${args[@]}"
    continue
  fi
  hf "$work/r.json" "$bin" "${args[@]}"
  hf "$work/g.json" rg -l -i postgres "$dir"
  r=$(median_ms "$work/r.json"); g=$(median_ms "$work/g.json")
  if [ -n "$base" ]; then
    XDG_CACHE_HOME="$work/cache-base" hf "$work/b.json" "$base" "${args[@]}"
    b=$(median_ms "$work/b.json")
    printf '| %s | %s ms | %s ms | %s | %.1f ms | %s | %s |\n' "$n" "$(stat_ms "$work/r.json")" \
      "$(stat_ms "$work/b.json")" "$(ratio "$r" "$b")" "$g" "$(ratio "$r" "$g")" "$(ratio "$b" "$g")"
  else
    printf '| %s | %s ms | %.1f ms | %s |\n' "$n" "$(stat_ms "$work/r.json")" "$g" "$(ratio "$r" "$g")"
  fi
  if [ "${INSTRUCTIONS:-0}" = 1 ]; then
    note="instructions at $n files: mem-recall $(instr "$bin" "${args[@]}")"
    [ -n "$base" ] && note+=", base $(XDG_CACHE_HOME="$work/cache-base" instr "$base" "${args[@]}")"
    notes+=("$note")
  fi
done
for note in "${notes[@]+"${notes[@]}"}"; do echo "$note"; done
