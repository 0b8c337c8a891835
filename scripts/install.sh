#!/usr/bin/env bash
# Install the mem tools from this clone, with their man pages and shell
# completions (generated from the tools' own clap definitions by mem-docs).
#
# Usage: scripts/install.sh [--no-docs | --docs-only]
#   --no-docs    only `cargo install` the six tools
#   --docs-only  only generate the man pages and completions (uses mem-docs
#                from $MEM_BIN_DIR when set, else builds it)
#
# Where (override with the environment variables named):
#   tools        cargo's bin directory (~/.cargo/bin; CARGO_INSTALL_ROOT)
#   man pages    ~/.local/share/man/man1                      (MEM_MAN_DIR)
#   bash         ~/.local/share/bash-completion/completions  (MEM_BASH_DIR)
#   zsh          ~/.local/share/zsh/site-functions            (MEM_ZSH_DIR; add it to fpath)
#   fish         ~/.config/fish/completions                   (MEM_FISH_DIR)
set -euo pipefail
cd "$(dirname "$0")/.."

tools=(mem-transcript mem-extract mem-index mem-recall mem-dream mem-lock)
do_tools=1 do_docs=1
for a in "$@"; do
  case $a in
    --no-docs) do_docs=0 ;;
    --docs-only) do_tools=0 ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install: unknown argument: $a (see --help)" >&2; exit 2 ;;
  esac
done

if [ $do_tools = 1 ]; then
  command -v cargo >/dev/null || { echo "install: cargo is required (https://rustup.rs)" >&2; exit 1; }
  for t in "${tools[@]}"; do
    echo "== cargo install --locked --path $t"
    cargo install --locked --path "$t"
  done
  echo "tools: $(dirname "$(command -v mem-recall 2>/dev/null || echo "${CARGO_INSTALL_ROOT:-${CARGO_HOME:-$HOME/.cargo}}/bin/mem-recall")")"
fi

if [ $do_docs = 1 ]; then
  if [ -n "${MEM_BIN_DIR:-}" ] && [ -x "$MEM_BIN_DIR/mem-docs" ]; then
    docs=$MEM_BIN_DIR/mem-docs
  else
    echo "== building mem-docs"
    cargo build --locked --release -p mem-docs
    docs=${CARGO_TARGET_DIR:-target}/release/mem-docs
  fi
  data=${XDG_DATA_HOME:-$HOME/.local/share}
  man_dir=${MEM_MAN_DIR:-$data/man/man1}
  bash_dir=${MEM_BASH_DIR:-$data/bash-completion/completions}
  zsh_dir=${MEM_ZSH_DIR:-$data/zsh/site-functions}
  fish_dir=${MEM_FISH_DIR:-${XDG_CONFIG_HOME:-$HOME/.config}/fish/completions}
  n=$("$docs" man "$man_dir" | wc -l)
  echo "man pages: $n in $man_dir (try: man mem-recall)"
  "$docs" completions bash "$bash_dir" >/dev/null && echo "bash completions: $bash_dir"
  "$docs" completions zsh "$zsh_dir" >/dev/null && echo "zsh completions: $zsh_dir (add it to fpath before compinit)"
  "$docs" completions fish "$fish_dir" >/dev/null && echo "fish completions: $fish_dir"
fi
