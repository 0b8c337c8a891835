#!/usr/bin/env bash
# Add mem's hooks to Claude Code's settings (or remove them): a thin wrapper
# of `mem-hook install` / `mem-hook uninstall`, kept so that older
# instructions still work. See `mem-hook install --help`.
#
# Usage: scripts/install-hooks.sh [--uninstall] [--settings FILE] [--dry-run]
#                                 [--project] [--codex] [--bin-dir DIR]
#                                 [--model-cmd CMD]
#   --uninstall      remove exactly mem's hook entries, keep everything else
#   other options    passed to `mem-hook install|uninstall`
#
# mem-hook is taken from $MEM_BIN_DIR, else PATH, else this clone's
# target/release or target/debug. The hooks run the tools by the absolute
# paths of the directory that mem-hook is in (or --bin-dir).
set -euo pipefail

usage() { sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; }

action=install
args=()
for a in "$@"; do
  case $a in
    --uninstall) action=uninstall ;;
    -h|--help) usage; exit 0 ;;
    *) args+=("$a") ;;
  esac
done

here=$(cd "$(dirname "$0")/.." && pwd)
hook=
for c in "${MEM_BIN_DIR:+$MEM_BIN_DIR/mem-hook}" "$(command -v mem-hook || true)" \
         "$here"/target/*-linux-gnu/release/mem-hook \
         "$here/target/release/mem-hook" "$here/target/debug/mem-hook"; do
  if [ -n "$c" ] && [ -x "$c" ]; then hook=$c; break; fi
done
[ -n "$hook" ] || {
  echo "install-hooks: mem-hook not found (set MEM_BIN_DIR, put it on PATH, or run scripts/install.sh)" >&2
  exit 1
}
exec "$hook" "$action" ${args[@]+"${args[@]}"}
