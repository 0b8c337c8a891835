#!/usr/bin/env bash
# Stress the consolidation lock: N processes x M rounds of
#   mem-lock run LOCK -- <increment a counter>
# The critical section makes a marker directory (mkdir fails if it exists),
# so two holders at once are detected. A run that finds the lock busy
# (exit 75) retries after a short sleep.
#
# Usage: dev/lock-stress.sh [N] [M]      (default 8 25)
# The binary: $MEM_LOCK_BIN, else built with cargo (debug) into
# ${CARGO_TARGET_DIR:-target}.
# Exit: 0 when the counter is N*M and no overlap was seen; 1 otherwise.
set -euo pipefail

n=${1:-8}
m=${2:-25}
root=$(cd "$(dirname "$0")/.." && pwd)

if [[ -z "${MEM_LOCK_BIN:-}" ]]; then
    (cd "$root" && cargo build -q -p mem-lock)
    MEM_LOCK_BIN="${CARGO_TARGET_DIR:-$root/target}/debug/mem-lock"
fi
[[ -x "$MEM_LOCK_BIN" ]] || { echo "lock-stress: no binary at $MEM_LOCK_BIN" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
lock="$work/.consolidate-lock"
echo 0 > "$work/counter"

# The critical section: enter (mkdir), read, pause, write, leave (rmdir).
crit='
    d=$1
    mkdir "$d/inside" 2>/dev/null || { : > "$d/overlap"; exit 99; }
    c=$(cat "$d/counter")
    sleep 0.00$((RANDOM % 5))
    echo $((c + 1)) > "$d/counter.tmp" && mv "$d/counter.tmp" "$d/counter"
    rmdir "$d/inside"
'

worker() {
    local w=$1 i rc busy=0
    for ((i = 0; i < m; i++)); do
        while :; do
            rc=0
            "$MEM_LOCK_BIN" run "$lock" -- bash -c "$crit" crit "$work" 2>/dev/null || rc=$?
            if ((rc == 75)); then
                busy=$((busy + 1))
                sleep 0.0$((RANDOM % 10 + 1))
                continue
            fi
            if ((rc != 0)); then
                echo "lock-stress: worker $w round $i: exit $rc" >&2
                : > "$work/failed"
            fi
            break
        done
    done
    echo "$busy" > "$work/busy.$w"
}

start=$(date +%s.%N)
for ((w = 0; w < n; w++)); do
    worker "$w" &
done
wait
end=$(date +%s.%N)

count=$(cat "$work/counter")
busy=$(cat "$work"/busy.* | awk '{s += $1} END {print s + 0}')
secs=$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.2f", b - a}')
content=$(cat "$lock" 2>/dev/null || echo missing)
status=ok
[[ "$count" -eq $((n * m)) ]] || status=FAIL
[[ -e "$work/overlap" ]] && status=FAIL
[[ -e "$work/failed" ]] && status=FAIL
[[ "$content" == 0 ]] || status=FAIL
echo "lock-stress: $status: N=$n M=$m counter=$count (want $((n * m)))" \
    "overlap=$([[ -e "$work/overlap" ]] && echo yes || echo no)" \
    "busy-retries=$busy lock-content=$content time=${secs}s"
[[ $status == ok ]]
