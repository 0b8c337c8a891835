#!/usr/bin/env bash
# Add mem's hooks to Claude Code's user settings (or remove them).
#
#   SessionStart, UserPromptSubmit:  mem-recall --hook
#   SessionEnd:                      mem-transcript replay --hook | mem-extract | mem-index write
#
# Usage: scripts/install-hooks.sh [--settings FILE] [--uninstall] [--dry-run]
#   --settings FILE  the settings file (default: $CLAUDE_CONFIG_DIR/settings.json,
#                    else ~/.claude/settings.json)
#   --uninstall      remove exactly mem's hook entries, keep everything else
#   --dry-run        print the resulting settings on stdout, write nothing
#
# The file is merged, never replaced: other hooks and keys stay as they are.
# Installing twice changes nothing. Before a change the old file is copied to
# settings.json.bak-<timestamp>; the new one is written atomically (temp file
# in the same directory, fsync, rename) with the old file's permissions.
# A file that is not a JSON object is refused (exit 1) and left untouched.
# The hooks call the tools by name: put them on PATH (scripts/install.sh).
set -euo pipefail

usage() { sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; }

settings="" mode=install dry=0
while [ $# -gt 0 ]; do
  case $1 in
    --settings) [ $# -ge 2 ] || { echo "install-hooks: --settings needs a FILE" >&2; exit 2; }
                settings=$2; shift 2 ;;
    --settings=*) settings=${1#--settings=}; shift ;;
    --uninstall) mode=uninstall; shift ;;
    --dry-run) dry=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "install-hooks: unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done
if [ -z "$settings" ]; then
  settings="${CLAUDE_CONFIG_DIR:-$HOME/.claude}/settings.json"
fi
command -v python3 >/dev/null || { echo "install-hooks: python3 is required" >&2; exit 1; }

if [ "$mode" = install ] && [ "$dry" = 0 ] && ! command -v mem-recall >/dev/null; then
  echo "install-hooks: note: mem-recall is not on PATH; the hooks run the tools by name (scripts/install.sh installs them)" >&2
fi

exec python3 - "$settings" "$mode" "$dry" <<'PY'
import json, os, sys, tempfile, time

path, mode, dry = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
RECALL = "mem-recall --hook"
WRITE = "mem-transcript replay --hook | mem-extract | mem-index write"
MEM = [("SessionStart", RECALL), ("UserPromptSubmit", RECALL), ("SessionEnd", WRITE)]

def die(msg):
    print(f"install-hooks: {msg}", file=sys.stderr)
    sys.exit(1)

real = os.path.realpath(path)
old_text = None
if os.path.exists(real):
    try:
        with open(real, "rb") as f:
            old_text = f.read().decode("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        die(f"{path}: cannot read: {e}")
if old_text is None or old_text.strip() == "":
    settings = {}
else:
    try:
        settings = json.loads(old_text)
    except json.JSONDecodeError as e:
        die(f"{path}:{e.lineno}: not JSON ({e.msg}); left untouched")
    if not isinstance(settings, dict):
        die(f"{path}: not a JSON object; left untouched")
before = json.loads(json.dumps(settings))

hooks = settings.get("hooks", {})
if not isinstance(hooks, dict):
    die(f'{path}: "hooks" is not an object; left untouched')
for event, _ in MEM:
    if event in hooks and not isinstance(hooks[event], list):
        die(f'{path}: "hooks.{event}" is not a list; left untouched')

def is_mem(h, command):
    return isinstance(h, dict) and h.get("type") == "command" and h.get("command") == command

changes = []
if mode == "install":
    for event, command in MEM:
        groups = hooks.setdefault(event, [])
        present = any(
            isinstance(g, dict) and isinstance(g.get("hooks"), list)
            and any(is_mem(h, command) for h in g["hooks"])
            for g in groups)
        if not present:
            groups.append({"hooks": [{"type": "command", "command": command}]})
            changes.append(f"added {event}: {command}")
    settings["hooks"] = hooks
else:
    for event, command in MEM:
        groups = hooks.get(event)
        if not groups:
            continue
        kept = []
        for g in groups:
            if isinstance(g, dict) and isinstance(g.get("hooks"), list):
                inner = [h for h in g["hooks"] if not is_mem(h, command)]
                if len(inner) != len(g["hooks"]):
                    changes.append(f"removed {event}: {command}")
                    if not inner:
                        continue
                    g = dict(g, hooks=inner)
            kept.append(g)
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if "hooks" in settings and not hooks:
        del settings["hooks"]

new_text = json.dumps(settings, indent=2, ensure_ascii=False) + "\n"
if settings == before and (old_text is not None or mode == "uninstall"):
    print(f"{path}: unchanged (mem's hooks are {'already there' if mode == 'install' else 'not there'})",
          file=sys.stderr if dry else sys.stdout)
    if dry and old_text is not None:
        sys.stdout.write(old_text)
    sys.exit(0)
if dry:
    for c in changes:
        print(c, file=sys.stderr)
    print(f"{path}: dry run, nothing written", file=sys.stderr)
    sys.stdout.write(new_text)
    sys.exit(0)

d = os.path.dirname(real) or "."
os.makedirs(d, exist_ok=True)
mode_bits = 0o600
if old_text is not None:
    mode_bits = os.stat(real).st_mode & 0o7777
    stamp = time.strftime("%Y%m%dT%H%M%S")
    backup, n = f"{real}.bak-{stamp}", 1
    while os.path.exists(backup):
        n += 1
        backup = f"{real}.bak-{stamp}-{n}"
    with open(backup, "x", encoding="utf-8") as f:
        f.write(old_text)
    os.chmod(backup, mode_bits)
    print(f"backup: {backup}")
fd, tmp = tempfile.mkstemp(prefix=".settings.", suffix=".tmp", dir=d)
try:
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(new_text)
        f.flush()
        os.fsync(f.fileno())
    os.chmod(tmp, mode_bits)
    os.replace(tmp, real)
except BaseException:
    try:
        os.unlink(tmp)
    except OSError:
        pass
    raise
for c in changes:
    print(c)
print(f"wrote {path}")
PY
