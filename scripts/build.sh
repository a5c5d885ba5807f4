#!/usr/bin/env bash
# Builds the native tree (build/) and the WebAssembly tree (build-wasm/ -> wasm/dist/).
#   scripts/build.sh            both
#   scripts/build.sh native     native only
#   scripts/build.sh wasm       wasm only
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
jobs=$(nproc)
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)

if [ "$what" = all ] || [ "$what" = native ]; then
  [ -f build/CMakeCache.txt ] || cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=Release
  cmake --build build -j "$jobs"
fi

if [ "$what" = all ] || [ "$what" = wasm ]; then
  # Debian's emscripten needs Debian's acorn for its JS optimizer.
  export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
  [ -f build-wasm/CMakeCache.txt ] || emcmake cmake -S . -B build-wasm "${generator[@]}" -DCMAKE_BUILD_TYPE=Release
  cmake --build build-wasm -j "$jobs"
fi
