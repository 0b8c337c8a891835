#!/usr/bin/env bash
# Run every test of the workspace: build the binaries (the end-to-end tests
# run them), then the unit, integration and end-to-end tests, then doc tests.
# Tests that need ../shared (the corpus, cases and eval sets beside the
# project) print "SKIPPED <test>" when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

locked=()
[ -f Cargo.lock ] && locked=(--locked)

cargo build --workspace --bins "${locked[@]}"
if cargo nextest --version >/dev/null 2>&1; then
  cargo nextest run --workspace "${locked[@]}" --no-fail-fast "$@"
else
  echo "cargo-nextest not found: running cargo test" >&2
  cargo test --workspace "${locked[@]}" --no-fail-fast "$@"
fi
cargo test --workspace --doc "${locked[@]}"
if [ ! -d ../shared ] && [ -z "${MEM_SHARED_DIR:-}" ]; then
  echo "NOTE: ../shared is not present: the corpus, case and eval tests were SKIPPED (see the SKIPPED lines above)." >&2
fi
