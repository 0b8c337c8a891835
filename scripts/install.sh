#!/usr/bin/env bash
# Install the mem tools from this clone, with their man pages and shell
# completions (generated from the tools' own clap definitions by mem-docs).
# The workspace is built once (scripts/build-release.sh: `cargo build
# --release --workspace --locked`, static-pie on glibc Linux); the seven
# binaries are then copied into place.
#
# Usage: scripts/install.sh [--prefix DIR] [--no-docs | --docs-only] [--hooks]
#   --prefix DIR  install the tools into DIR/bin (default: cargo's bin
#                 directory, $CARGO_INSTALL_ROOT/bin or ~/.cargo/bin)
#   --no-docs     only the seven tools
#   --docs-only   only the man pages and completions
#   --hooks       then add mem's hooks to Claude Code's settings
#                 (`mem-hook install`, with the installed paths)
# With $MEM_BIN_DIR set (a directory of already built binaries) nothing is
# built: the tools and mem-docs are taken from there.
#
# Where (override with the environment variables named):
#   tools        see --prefix
#   man pages    ~/.local/share/man/man1                      (MEM_MAN_DIR)
#   bash         ~/.local/share/bash-completion/completions  (MEM_BASH_DIR)
#   zsh          ~/.local/share/zsh/site-functions            (MEM_ZSH_DIR; add it to fpath)
#   fish         ~/.config/fish/completions                   (MEM_FISH_DIR)
set -euo pipefail
cd "$(dirname "$0")/.."

tools=(mem-transcript mem-extract mem-index mem-recall mem-hook mem-dream mem-lock)
do_tools=1 do_docs=1 do_hooks=0 prefix=
while [ $# -gt 0 ]; do
  case $1 in
    --no-docs) do_docs=0 ;;
    --docs-only) do_tools=0 ;;
    --hooks) do_hooks=1 ;;
    --prefix)
      [ $# -ge 2 ] || { echo "install: --prefix needs a directory" >&2; exit 2; }
      prefix=$2; shift ;;
    --prefix=*) prefix=${1#--prefix=} ;;
    -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install: unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

built=0
from=${MEM_BIN_DIR:-}
build() {
  from=$(scripts/build-release.sh --workspace)
  built=1
}

if [ $do_tools = 1 ]; then
  [ -n "${MEM_BIN_DIR:-}" ] || build
  if [ -n "$prefix" ]; then
    bin_dir=$prefix/bin
  else
    bin_dir=${CARGO_INSTALL_ROOT:-${CARGO_HOME:-$HOME/.cargo}}/bin
  fi
  mkdir -p "$bin_dir"
  for t in "${tools[@]}"; do
    # Copy to a temporary name, then rename: a running tool is never
    # overwritten in place ("Text file busy") and never seen half-copied.
    install -m 0755 "$from/$t" "$bin_dir/.$t.new"
    mv -f "$bin_dir/.$t.new" "$bin_dir/$t"
  done
  echo "tools: ${tools[*]} in $bin_dir"
  case ":$PATH:" in
    *":$bin_dir:"*) ;;
    *) echo "note: $bin_dir is not on PATH" >&2 ;;
  esac
  if [ $do_hooks = 1 ]; then
    echo "== $bin_dir/mem-hook install"
    "$bin_dir/mem-hook" install
  else
    echo "hooks: $bin_dir/mem-hook install   (Claude Code; --codex for Codex, --dry-run to see it first)"
  fi
fi

if [ $do_docs = 1 ]; then
  [ -n "${MEM_BIN_DIR:-}" ] || [ $built = 1 ] || build
  docs=$from/mem-docs
  data=${XDG_DATA_HOME:-$HOME/.local/share}
  man_dir=${MEM_MAN_DIR:-$data/man/man1}
  bash_dir=${MEM_BASH_DIR:-$data/bash-completion/completions}
  zsh_dir=${MEM_ZSH_DIR:-$data/zsh/site-functions}
  fish_dir=${MEM_FISH_DIR:-${XDG_CONFIG_HOME:-$HOME/.config}/fish/completions}
  n=$("$docs" man "$man_dir" | wc -l)
  echo "man pages: $n in $man_dir (try: man mem-recall)"
  # man looks only where its path says: say how to add the directory
  man_root=$(dirname "$man_dir")
  if command -v manpath >/dev/null 2>&1 \
    && ! manpath 2>/dev/null | tr ':' '\n' | grep -qxF "$man_root"; then
    echo "  man does not look in $man_root yet; add to your shell profile:"
    echo "    export MANPATH=\"$man_root:\$(manpath 2>/dev/null)\""
  elif ! command -v manpath >/dev/null 2>&1; then
    echo "  (if man does not find them: export MANPATH=\"$man_root:\$MANPATH\")"
  fi
  "$docs" completions bash "$bash_dir" >/dev/null && echo "bash completions: $bash_dir"
  "$docs" completions zsh "$zsh_dir" >/dev/null && echo "zsh completions: $zsh_dir (add it to fpath before compinit)"
  "$docs" completions fish "$fish_dir" >/dev/null && echo "fish completions: $fish_dir"
fi
