#!/usr/bin/env bash
# Builds the libFuzzer harnesses (fuzz/*.cpp, clang with ASan + UBSan, build-fuzz/) and runs each for N seconds
# (default 60) on a copy of its committed seed corpus (fuzz/corpus/<harness>/), after replaying the regression
# files (fuzz/regression/<harness>/, if any). A finding stops with libFuzzer's report and the input that caused it
# (build-fuzz/findings/), and the script fails.
#   scripts/fuzz.sh [seconds] [harness...]     harness: model_file, text_pipeline, json_metadata, corpus_tsv
#                                              (default: all)
# Limits: 2 GB of memory (-rss_limit_mb; also caps single allocations at that size) and 10 s per input
# (-timeout): a model file must not make the loader allocate or compute without bound.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(model_file text_pipeline json_metadata corpus_tsv)
clangxx=${CLANGXX:-clang++-14}
command -v "$clangxx" >/dev/null || { echo "fuzz: $clangxx is missing (scripts/setup.sh installs clang-14)" >&2; exit 1; }
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
# Paths under the checkout reach ccache relative to it, so that another clone of the project (a CI run's) finds
# what this one compiled.
export CCACHE_BASEDIR="$PWD"

[ -f build-fuzz/CMakeCache.txt ] || CXX="$clangxx" cmake -S . -B build-fuzz "${generator[@]}" "${launcher[@]}" \
  -DCMAKE_BUILD_TYPE=Release -DATTEND_FUZZ=ON -DATTEND_PORTABLE=ON -DATTEND_CUDA=OFF > /dev/null
cmake --build build-fuzz -j "$(nproc)" --target "${harnesses[@]/#/fuzz_}"

limits=(-rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10)
mkdir -p build-fuzz/findings
status=0
for h in "${harnesses[@]}"; do
  if [ -d "fuzz/regression/$h" ]; then
    echo "== fuzz_$h: regression files"
    "build-fuzz/bin/fuzz_$h" "${limits[@]}" "fuzz/regression/$h"/* || status=1
  fi
done

# One harness is one process on one core: the harnesses run side by side, one per core, each for its full time.
fuzz_one() {
  local h=$1 work=build-fuzz/corpus/$1 log=build-fuzz/fuzz_$1.log
  # The committed seeds stay as they are; what the run discovers goes to a scratch corpus.
  mkdir -p "$work"
  if "build-fuzz/bin/fuzz_$h" "${limits[@]}" -max_total_time="$seconds" -print_final_stats=1 \
       -artifact_prefix="build-fuzz/findings/$h-" "$work" "fuzz/corpus/$h" > "$log" 2>&1; then
    echo "== fuzz_$h: ${seconds} s"
    grep -E "^stat::(number_of_executed_units|peak_rss_mb)|^#[0-9]+ +DONE" "$log" || true
  else
    echo "== fuzz_$h: ${seconds} s"
    tail -n 80 "$log"
    echo "fuzz_$h: FINDING (the input is in build-fuzz/findings/, the whole log in $log)"
    return 1
  fi
}
cores=$(nproc) running=0
for h in "${harnesses[@]}"; do
  if [ "$running" -ge "$cores" ]; then
    wait -n || status=1
    running=$((running - 1))
  fi
  fuzz_one "$h" &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || status=1
  running=$((running - 1))
done
exit $status
