#!/usr/bin/env bash
# realclient: mem's hooks inside the REAL Claude Code and Codex CLIs, offline,
# against a scripted fake model (fake_model.py) that records every request it
# receives, so the checks read exactly what reached "the model". The heavy
# tier runs it (tests/tests/realclient.rs); see README.md here.
#
#   tests/realclient/run.sh [--claude-only | --codex-only] [--check]
#
# (from the project root: mem's binaries come from MEM_BIN_DIR, else mem-hook
# on PATH, else target/*/release or target/release)
#
# Everything happens in a fresh $TMPDIR/realclient.XXXXXX (fake HOMEs, a small
# git project); nothing outside it is touched but the npm cache below. WORK stays
# as the evidence. The last line printed is the summary, e.g.
#   realclient: claude hooks-accepted yes, memory-written yes, injected yes, ...,
#   action-before yes, ... | codex ...
# Evidence: WORK/report.txt (also printed), WORK/results.json, WORK/requests.jsonl.
#
# --check: exit 1 unless what mem promises held in both clients (check.py).
# When npm (or python3, git, node) is missing, or the npm registry cannot be
# reached and the cache does not hold the clients, it prints one line
# `SKIPPED realclient: <why>` and exits 0.
#
# Environment:
#   MEM_BIN_DIR         mem's binaries
#   CLAUDE_PKG          npm spec, default @anthropic-ai/claude-code@~2.1.0
#   CODEX_PKG           npm spec, default "@openai/codex@>=0.160.0 <0.170.0"
#   REALCLIENT_NPM_DIR  an npm prefix that holds both clients; default
#                       target/realclient/npm of the project (installed there
#                       once, about 640 MB, and kept: delete it to update)
#   REALCLIENT_STRACE   1 (default when strace exists): time each hook process with strace
#   REALCLIENT_TIMEOUT  seconds per client run (default 300)
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
mode=both check=0
for a in "$@"; do
  case $a in
    --claude-only) mode=claude ;;
    --codex-only) mode=codex ;;
    --check) check=1 ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "realclient: unknown argument $a" >&2; exit 2 ;;
  esac
done

skip() { echo "SKIPPED realclient: $*"; [ -n "${WORK:-}" ] && rm -rf "$WORK"; exit 0; }
for t in npm node python3 git; do
  command -v "$t" >/dev/null 2>&1 || skip "$t is not installed"
done

# ---------------------------------------------------------------- mem binaries
if [ -z "${MEM_BIN_DIR:-}" ]; then
  if command -v mem-hook >/dev/null 2>&1; then
    MEM_BIN_DIR=$(dirname "$(readlink -f "$(command -v mem-hook)")")
  else
    for d in "$PWD"/target/*-linux-gnu/release "$PWD"/target/release; do
      [ -x "$d/mem-hook" ] && { MEM_BIN_DIR=$(cd "$d" && pwd); break; }
    done
  fi
fi
[ -n "${MEM_BIN_DIR:-}" ] && [ -x "$MEM_BIN_DIR/mem-hook" ] || {
  echo "realclient: mem binaries not found (set MEM_BIN_DIR)" >&2; exit 1; }
export MEM_BIN_DIR

WORK=$(mktemp -d -t realclient.XXXXXX)  # in $TMPDIR, else the system's temp dir
export WORK
echo "realclient: work dir $WORK, mem from $MEM_BIN_DIR" >&2
TIMEOUT=${REALCLIENT_TIMEOUT:-300}
STRACE=${REALCLIENT_STRACE:-}
[ -z "$STRACE" ] && { command -v strace >/dev/null 2>&1 && STRACE=1 || STRACE=0; }
NICE="nice -n 10"

# ---------------------------------------------------------------- the clients
CLAUDE_PKG=${CLAUDE_PKG:-@anthropic-ai/claude-code@~2.1.0}
CODEX_PKG=${CODEX_PKG:-@openai/codex@>=0.160.0 <0.170.0}
# newest version in the range: npm install itself prefers the versions whose `engines`
# fit this node (on node 20 that is claude-code 2.1.197, not the newest 2.1.x)
newest() {
  local v
  v=$(npm view "$1" version --json 2>/dev/null | python3 -c '
import json, re, sys
d = json.load(sys.stdin); d = d if isinstance(d, list) else [d]
key = lambda v: [int(x) for x in re.findall(r"\d+", v.split("-")[0])]
print(max(d, key=key))' 2>/dev/null) && [ -n "$v" ] && echo "${1%@*}@$v" || echo "$1"
}
NPM=${REALCLIENT_NPM_DIR:-$PWD/target/realclient/npm}
have_clients() {
  [ "$mode" = codex ] || [ -e "$NPM/node_modules/@anthropic-ai/claude-code/package.json" ] || return 1
  [ "$mode" = claude ] || [ -e "$NPM/node_modules/@openai/codex/package.json" ] || return 1
}
if ! have_clients; then
  [ -n "${REALCLIENT_NPM_DIR:-}" ] && { echo "realclient: $NPM does not hold the clients" >&2; exit 1; }
  timeout 30 npm ping >/dev/null 2>&1 || skip "the npm registry cannot be reached (npm ping failed)"
  CLAUDE_PKG=$(newest "$CLAUDE_PKG"); CODEX_PKG=$(newest "$CODEX_PKG")
  mkdir -p "$NPM"
  echo "realclient: npm install $CLAUDE_PKG $CODEX_PKG into $NPM" >&2
  pkgs=("$CLAUDE_PKG" "$CODEX_PKG")
  (cd "$NPM" && echo '{"name":"realclient-clients","private":true}' > package.json &&
   $NICE npm install --no-audit --no-fund --loglevel=error "${pkgs[@]}") \
     > "$WORK/npm-install.log" 2>&1 || { echo "realclient: npm install failed, see $WORK/npm-install.log" >&2; exit 1; }
fi
CLAUDE=$NPM/node_modules/.bin/claude
CODEX=$NPM/node_modules/.bin/codex
# the native binary, if the package's launcher was not linked (no postinstall)
if ! "$CLAUDE" --version >/dev/null 2>&1; then
  for c in "$NPM"/node_modules/@anthropic-ai/claude-code-linux-*/claude; do [ -x "$c" ] && CLAUDE=$c; done
fi
CLAUDE_VERSION=$("$CLAUDE" --version 2>/dev/null | head -1)
CODEX_VERSION=$("$CODEX" --version 2>/dev/null | grep -v WARNING | head -1)
[ "$mode" = codex ] || [ -n "$CLAUDE_VERSION" ] || { echo "realclient: claude does not run ($CLAUDE)" >&2; exit 1; }
[ "$mode" = claude ] || [ -n "$CODEX_VERSION" ] || { echo "realclient: codex does not run ($CODEX)" >&2; exit 1; }
export CLAUDE_VERSION CODEX_VERSION
echo "realclient: $CLAUDE_VERSION; $CODEX_VERSION" >&2

# ---------------------------------------------------------------- fake model
REQ=$WORK/requests.jsonl
: > "$REQ"
$NICE python3 "$HERE/fake_model.py" --record "$REQ" --port-file "$WORK/port" 2> "$WORK/fake_model.log" &
SERVER=$!
cleanup() {  # WORK stays (it is the evidence); so does the npm cache
  kill "$SERVER" 2>/dev/null
  wait "$SERVER" 2>/dev/null
}
trap cleanup EXIT
for _ in $(seq 50); do [ -s "$WORK/port" ] && break; sleep 0.1; done
PORT=$(cat "$WORK/port" 2>/dev/null) || { echo "realclient: fake model did not start" >&2; exit 1; }

# ---------------------------------------------------------------- helpers
make_project() { # DIR: src/setup.mjs writes what src/build-token.mjs needs
  mkdir -p "$1/src"
  cat > "$1/src/setup.mjs" <<'EOF'
// Generates the config that build-token needs.
import { mkdirSync, writeFileSync } from "node:fs";
mkdirSync(".cache", { recursive: true });
writeFileSync(".cache/setup.json", JSON.stringify({ salt: "s3" }) + "\n");
console.log("setup: wrote .cache/setup.json");
EOF
  cat > "$1/src/build-token.mjs" <<'EOF'
// Builds the token from the config that setup writes.
import { readFileSync } from "node:fs";
let cfg;
try {
  cfg = JSON.parse(readFileSync(".cache/setup.json", "utf8"));
} catch (e) {
  console.error("build-token: error: cannot read .cache/setup.json (" + e.code + ")");
  process.exit(1);
}
console.log("build-token: ok, token=tok-" + cfg.salt);
EOF
  printf '.cache/\n' > "$1/.gitignore"
  printf '{"name":"demo","private":true,"type":"module"}\n' > "$1/package.json"
  (cd "$1" && git init -q && git add -A &&
   git -c user.email=t@example.com -c user.name=t commit -qm init)
}

reqcount() { wc -l < "$REQ" | tr -d ' '; }

# seed_user_memory HOME PROJ: a `type: user` memory as Claude Code's own auto-memory
# writes it (no triggers): mem's SessionStart hook injects such memories
seed_user_memory() {
  local memdir; memdir=$(cd "$2" && HOME=$1 "$MEM_BIN_DIR/mem-index" path)
  mkdir -p "$memdir" && cp "$HERE/seed/user_role.md" "$memdir/" &&
    printf -- '- [User role](user_role.md) — data engineer, ETL pipelines\n' >> "$memdir/MEMORY.md"
}

# session NAME CLIENT HOME PROJ -- COMMAND...: one client run, its requests,
# outputs and a snapshot of the memory directory afterwards
session() {
  local name=$1 client=$2 home=$3 proj=$4; shift 5
  local s0 s1 t0 t1 rc memdir
  echo "realclient: session $name" >&2
  s0=$(reqcount); t0=$(date +%s.%N)
  if [ "$STRACE" = 1 ]; then
    (cd "$proj" && timeout -k 10 "$TIMEOUT" strace -f --seccomp-bpf -ttt -e trace=execve -e signal=none \
       -s 400 -o "$WORK/$name.strace" $NICE "$@" > "$WORK/$name.out" 2> "$WORK/$name.err" < /dev/null)
  else
    (cd "$proj" && timeout -k 10 "$TIMEOUT" $NICE "$@" > "$WORK/$name.out" 2> "$WORK/$name.err" < /dev/null)
  fi
  rc=$?
  t1=$(date +%s.%N); s1=$(reqcount)
  memdir=$(cd "$proj" && HOME=$home "$MEM_BIN_DIR/mem-index" path 2>/dev/null)
  mkdir -p "$WORK/snap/$name"
  [ -d "$memdir" ] && (cd "$memdir" && find . -maxdepth 1 -name '*.md' -exec cp {} "$WORK/snap/$name/" \;)
  python3 - "$name" "$client" "$home" "$proj" "$memdir" "$s0" "$s1" "$t0" "$t1" "$rc" "$*" >> "$WORK/sessions.jsonl" <<'EOF'
import json, sys
a = sys.argv[1:]
print(json.dumps({"name": a[0], "client": a[1], "home": a[2], "proj": a[3], "memdir": a[4],
                  "req": [int(a[5]), int(a[6])], "wall_s": round(float(a[8]) - float(a[7]), 3),
                  "rc": int(a[9]), "cmd": a[10]}))
EOF
}

# ---------------------------------------------------------------- Claude Code
run_claude() {
  local H=$WORK/claude/home P=$WORK/claude/proj
  mkdir -p "$H"; make_project "$P"
  # install as docs/hooks.md says: `mem-hook install` (~/.claude/settings.json)
  (cd "$P" && HOME=$H "$MEM_BIN_DIR/mem-hook" install) > "$WORK/claude-install.log" 2>&1
  echo "rc=$?" >> "$WORK/claude-install.log"
  local ENVS=(env HOME="$H" ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" ANTHROPIC_API_KEY=sk-ant-dummy-key
              DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1)
  local C=("$CLAUDE" -p --allowedTools Bash --output-format stream-json --verbose --include-hook-events)
  session c1 claude "$H" "$P" -- "${ENVS[@]}" "${C[@]}" --debug-file "$WORK/c1.debug" "Run the build-token check."
  session c1b claude "$H" "$P" -- "${ENVS[@]}" "${C[@]}" --debug-file "$WORK/c1b.debug" --continue \
    "Always run setup first before the build-token check."
  rm -rf "$P/.cache"
  seed_user_memory "$H" "$P"
  session c2 claude "$H" "$P" -- "${ENVS[@]}" "${C[@]}" --debug-file "$WORK/c2.debug" "Run the build-token check."
  # the same conversation, one more prompt: is a memory it already holds injected again?
  session c2b claude "$H" "$P" -- "${ENVS[@]}" "${C[@]}" --debug-file "$WORK/c2b.debug" --continue \
    "What does build-token need?"
  # a session long enough (> 10,000 tokens) for mem's session memory, compacted, then asked on
  rm -rf "$P/.cache"
  local log; log=$(python3 -c "print('\n'.join('[ci] step %d: compiled src/module_%d.mjs in %d ms, 0 warnings'
                                                  % (i, i, (i * 37) % 500) for i in range(900)))")
  session c3 claude "$H" "$P" -- "${ENVS[@]}" "${C[@]}" --debug-file "$WORK/c3.debug" \
    "The CI log of the last build, for context:
$log

Run the build-token check."
  session c4 claude "$H" "$P" -- "${ENVS[@]}" "${C[@]}" --debug-file "$WORK/c4.debug" --continue "/compact"
  session c5 claude "$H" "$P" -- "${ENVS[@]}" "${C[@]}" --debug-file "$WORK/c5.debug" --continue \
    "Is the build-token check passing now?"
}

# ---------------------------------------------------------------- Codex
run_codex() {
  local H=$WORK/codex/home P=$WORK/codex/proj
  local CH=$H/.codex
  mkdir -p "$CH"; make_project "$P"
  # install as docs/hooks.md says: `mem-hook install --codex` ($CODEX_HOME/hooks.json)
  (cd "$P" && HOME=$H CODEX_HOME=$CH "$MEM_BIN_DIR/mem-hook" install --codex) > "$WORK/codex-install.log" 2>&1
  echo "rc=$?" >> "$WORK/codex-install.log"
  cat >> "$CH/config.toml" <<EOF
model = "gpt-5.5"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = "http://127.0.0.1:$PORT/v1"
wire_api = "responses"
env_key = "FAKE_OPENAI_API_KEY"
request_max_retries = 0
stream_max_retries = 0
EOF
  local ENVS=(env HOME="$H" CODEX_HOME="$CH" FAKE_OPENAI_API_KEY=dummy)
  # x0: as installed, hooks not yet trusted
  session x0 codex "$H" "$P" -- "${ENVS[@]}" "$CODEX" exec "Run the build-token check."
  rm -rf "$P/.cache"
  # trust them as Codex's /hooks review does (hooks/list -> trusted_hash in config.toml)
  local BYPASS=()
  if ! (cd "$P" && env HOME="$H" CODEX_HOME="$CH" PATH="$(dirname "$CODEX"):$PATH" \
        timeout 60 python3 "$HERE/codex_trust.py" "$P") > "$WORK/codex-trust.log" 2>&1; then
    echo "realclient: trusting through codex app-server failed; using --dangerously-bypass-hook-trust" >&2
    BYPASS=(--dangerously-bypass-hook-trust)
  fi
  session x1 codex "$H" "$P" -- "${ENVS[@]}" "$CODEX" exec "${BYPASS[@]}" "Run the build-token check."
  session x1b codex "$H" "$P" -- "${ENVS[@]}" "$CODEX" exec "${BYPASS[@]}" resume --last \
    "Always run setup first before the build-token check."
  # session 2 needs the lesson; if Codex's own session did not produce it, seed the
  # one the Claude run wrote (recorded as seeded in the results)
  local memdir; memdir=$(cd "$P" && HOME=$H "$MEM_BIN_DIR/mem-index" path)
  if ! grep -lq 'lesson/fail-fix-succeed' "$memdir"/*.md 2>/dev/null; then
    local src; src=$(grep -l 'lesson/fail-fix-succeed' "$WORK"/snap/c1/*.md 2>/dev/null | head -1)
    [ -n "$src" ] || src=$HERE/seed/run-node-src-setup-mjs-before-node-src-build-token-mjs.md
    mkdir -p "$memdir" && cp "$src" "$memdir/" &&
      (cd "$P" && HOME=$H "$MEM_BIN_DIR/mem-index" reindex) > "$WORK/codex-seed.log" 2>&1
    echo "$src" > "$WORK/codex-seeded"
  fi
  rm -rf "$P/.cache"
  seed_user_memory "$H" "$P"
  session x2 codex "$H" "$P" -- "${ENVS[@]}" "$CODEX" exec "${BYPASS[@]}" "Run the build-token check."
  printf '%s\n' "${BYPASS[@]}" > "$WORK/codex-bypass"
}

[ "$mode" != codex ] && run_claude
[ "$mode" != claude ] && run_codex

kill "$SERVER" 2>/dev/null; wait "$SERVER" 2>/dev/null
python3 "$HERE/analyze.py" "$WORK"
[ "$check" = 1 ] && exec python3 "$HERE/check.py" "$WORK" "$mode"
exit 0
