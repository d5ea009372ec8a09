#!/usr/bin/env bash
# Builds Warpscope and runs the whole test suite: a release build with warnings as errors, then
# an AddressSanitizer + UndefinedBehaviorSanitizer build of everything but the GUI (core,
# collectors, the CLI and their suites: the code that parses files and raw records). The GUI
# suites run in the release build only; sanitizing them too took a cold CI run past 30 minutes
# (2,017 s, stop 28). GPU-only tests (label `gpu`) are excluded here; scripts/gpu-tests.sh runs
# them on a machine with a GPU.
# Usage: scripts/test.sh [--no-sanitize]
set -euo pipefail
cd "$(dirname "$0")/.."
"$(pwd)/scripts/install-deps.sh"
jobs=$(nproc)
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/warpscope-ccache}"

echo "== format check (clang-format)"
scripts/lint.sh --format-only

echo "== release build + tests"
cmake --preset release >/dev/null
cmake --build --preset release -j "$jobs"
ctest --preset release -j "$jobs"

if [ "${1:-}" != "--no-sanitize" ]; then
  echo "== ASan + UBSan build + tests (no GUI)"
  cmake --preset asan >/dev/null
  cmake --build --preset asan -j "$jobs"
  ctest --preset asan -j "$jobs"
fi
echo "== all tests passed ($SECONDS s)"
