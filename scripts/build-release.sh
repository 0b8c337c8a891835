#!/usr/bin/env bash
# Build mem's release binaries the way they are installed, and print the
# directory that holds them: one line on stdout (cargo's output is on stderr).
#
#   scripts/build-release.sh [CARGO BUILD ARGS...]     default: --workspace
#   bin=$(scripts/build-release.sh -q -p mem-recall)   e.g. in a benchmark
#
# `--release --locked` are always passed. On a glibc Linux host (rustc's host
# triple ends in -linux-gnu) the tools are linked as static position-
# independent executables (static-pie: `-C target-feature=+crt-static`, with
# `--target <host>` so that build scripts and proc macros stay dynamic). The
# loader then maps no shared library and looks up no symbol when a tool
# starts, which is a large part of a short call: a recall over 200 topic
# files took 4.5 ms instead of 5.5 ms (docs/recall.md, "Speed"). Addresses
# are still randomised (ASLR). The binaries are in target/<host>/release/.
#
# MEM_STATIC=0 builds the ordinary dynamic binaries (target/release/). When
# the static link fails (no static C library: on Fedora that is the
# glibc-static package) the script says so on stderr and builds those too.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
[ $# -gt 0 ] || set -- --workspace
command -v cargo >/dev/null || { echo "build-release: cargo is required (https://rustup.rs)" >&2; exit 1; }
target=${CARGO_TARGET_DIR:-$root/target}
case $target in /*) ;; *) target="$root/$target" ;; esac

host=$(rustc -vV 2>/dev/null | sed -n 's/^host: //p')
if [ "${MEM_STATIC:-1}" != 0 ] && [[ $host == *-linux-gnu ]]; then
  echo "== cargo build --release --locked --target $host (static-pie) $*" >&2
  if RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+crt-static" \
    cargo build --release --locked --target "$host" "$@" >&2; then
    echo "$target/$host/release"
    exit 0
  fi
  echo "build-release: the static link failed (is the static C library installed?); building dynamic binaries" >&2
fi
echo "== cargo build --release --locked $*" >&2
cargo build --release --locked "$@" >&2
echo "$target/release"
