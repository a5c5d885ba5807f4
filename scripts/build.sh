#!/usr/bin/env bash
# Builds the named trees (default: native wasm):
#   native     build/           -march=native: the CLI, the test binaries, kernel_cases
#   wasm       build-wasm/      -> wasm/dist/*
#   portable   build-portable/  test_core + test_native without -march=native (the compiler's default instruction
#                               set, x86-64: SSE2): the suite must hold on any CPU, not only this one. test_native
#                               here is the files whose results an instruction set can change
#                               (tests/native/instruction_set.txt)
#   sanitize   build-asan/      test_core + test_native with AddressSanitizer + UndefinedBehaviorSanitizer, at -O1
#                               (ASan's advice: readable stacks, and it compiles several times faster than -O3)
# scripts/fuzz.sh builds its own tree (build-fuzz/, clang). `npm test` builds all four.
set -euo pipefail
cd "$(dirname "$0")/.."
trees=("$@")
[ ${#trees[@]} -gt 0 ] || trees=(native wasm)
jobs=$(nproc)
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
# Paths under the checkout reach ccache relative to it, so that another clone of the project (a CI run's) finds
# what this one compiled.
export CCACHE_BASEDIR="$PWD"

for tree in "${trees[@]}"; do
  case "$tree" in
    native)
      [ -f build/CMakeCache.txt ] || cmake -S . -B build "${generator[@]}" "${launcher[@]}" -DCMAKE_BUILD_TYPE=Release
      cmake --build build -j "$jobs" ;;
    wasm)
      # Debian's emscripten needs Debian's acorn for its JS optimizer.
      export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
      [ -f build-wasm/CMakeCache.txt ] ||
        emcmake cmake -S . -B build-wasm "${generator[@]}" "${launcher[@]}" -DCMAKE_BUILD_TYPE=Release
      cmake --build build-wasm -j "$jobs" ;;
    portable)
      [ -f build-portable/CMakeCache.txt ] || cmake -S . -B build-portable "${generator[@]}" "${launcher[@]}" \
        -DCMAKE_BUILD_TYPE=Release -DATTEND_PORTABLE=ON -DATTEND_CUDA=OFF \
        -DATTEND_TEST_NATIVE_INSTRUCTION_SET_ONLY=ON
      # A tree configured before the option existed takes it too: it changes which test files are compiled, no flag.
      grep -q '^ATTEND_TEST_NATIVE_INSTRUCTION_SET_ONLY:BOOL=ON$' build-portable/CMakeCache.txt ||
        cmake -S . -B build-portable -DATTEND_TEST_NATIVE_INSTRUCTION_SET_ONLY=ON > /dev/null
      cmake --build build-portable -j "$jobs" --target test_core test_native ;;
    sanitize)
      # With debug information ccache keys an object on the directory it was compiled in, unless the checkout's
      # path is mapped away: then another clone finds these objects too.
      [ -f build-asan/CMakeCache.txt ] || cmake -S . -B build-asan "${generator[@]}" "${launcher[@]}" \
        -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -g1 -DNDEBUG -fdebug-prefix-map=$PWD=." \
        -DATTEND_SANITIZE=ON -DATTEND_CUDA=OFF
      cmake --build build-asan -j "$jobs" --target test_core test_native ;;
    *) echo "build: unknown tree '$tree' (native, wasm, portable, sanitize)" >&2; exit 1 ;;
  esac
done
