#!/usr/bin/env bash
# clang-format check over every source file; with no argument also clang-tidy over the
# release build's compile_commands.json (configure with `cmake --preset release` first).
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.h' '*.cpp' '*.cu' '*.cuh' | grep -v '^tests/fixtures/')
if ((${#files[@]})); then
  clang-format --dry-run -Werror "${files[@]}"
fi
echo "lint: clang-format clean (${#files[@]} files)"
# Layers, folder circles and SQL outside core/store (docs/architecture.md).
python3 scripts/layers.py
[ "${1:-}" = "--format-only" ] && exit 0
mapfile -t tidy < <(printf '%s\n' "${files[@]}" | grep -E '\.cpp$' | grep -E '^(core|app/cli|collectors/launcher)/')
clang-tidy -p build/release --quiet "${tidy[@]}" 2>&1 | grep -E 'warning:|error:' && { echo "lint: clang-tidy findings"; exit 1; }
echo "lint: clang-tidy clean (${#tidy[@]} files)"
