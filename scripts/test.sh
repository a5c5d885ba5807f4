#!/usr/bin/env bash
# Runs every test suite: the native doctest binaries (CTest) on the -march=native tree and on the portable tree,
# the sanitized binaries, each fuzz harness for a minute, then the wasm tests in Node, the demo server's tests (with
# the check of the documentation's links) and the browser tests.
# Assumes `scripts/build.sh native wasm portable sanitize` has run (npm test does both).
#   FUZZ_SECONDS=N   seconds per fuzz harness (default 60; 0 skips fuzzing, say so when you do)
set -uo pipefail
cd "$(dirname "$0")/.."
status=0
# ctest runs the two doctest binaries side by side on 2 cores: threads that spin while they wait for each other
# (OpenMP's default) then slow everything down many times over; passive waiting does not.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
stage() { echo "== $1 ($(date -u +%H:%M:%S))"; }

# The native tests of both trees and the sanitized tests run side by side, one lane a core: most of their cases
# are one thread, and the lanes' outputs are shown whole, each after its lane ends.
lane_trees() {
  stage "native tests (ctest, build/: -march=native)"
  local rc=0
  ctest --test-dir build --output-on-failure -j 2 || rc=1
  stage "native tests (ctest, build-portable/: the compiler's default instruction set)"
  ctest --test-dir build-portable --output-on-failure -j 2 || rc=1
  return $rc
}

# AddressSanitizer + UndefinedBehaviorSanitizer: any report fails the run. Under ASan (at -O1, where the
# tokenizer's string work runs a hundred times slower) some cases would take most of an hour, so they are left
# out here and run in both trees above: the full-length training runs of the seeds' presets and the 49M-parameter
# transformer-base steps (their code paths run under the sanitizers in the shortened runs: the interrupted and
# resumed bahdanau-d2l run, the shrunk Multi30K runs), and the cases that push whole Multi30K files or test sets
# through the text pipeline and the shipped models (the same code runs here on a few hundred sentences in the BPE,
# tokenizer, translator and trainer cases).
# The MPI cases are left out too: they start `mpirun attend`, and LeakSanitizer reports OpenMPI's own allocations
# that live until exit as leaks of every rank.
lane_sanitized() {
  stage "sanitized tests (build-asan/: ASan + UBSan)"
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:halt_on_error=1}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
  local skip="*reproduces the seeds' table*,cased pipeline*,shipped models*,*hostile inputs*"
  skip+=",BPE learner agrees with a full recount*,joint BPE on Multi30K train*,mpi:*,transformer-base is seed 001*"
  local rc=0
  build-asan/bin/test_core || rc=1
  build-asan/bin/test_native --test-case-exclude="$skip" || rc=1
  return $rc
}

lanes=$(mktemp -d)
lane_trees > "$lanes/trees.log" 2>&1 &
trees_pid=$!
lane_sanitized > "$lanes/sanitized.log" 2>&1 &
sanitized_pid=$!
wait "$trees_pid" || { status=1; echo "native tests FAILED"; }
cat "$lanes/trees.log"
wait "$sanitized_pid" || { status=1; echo "sanitized tests FAILED"; }
cat "$lanes/sanitized.log"
rm -rf "$lanes"

fuzz_seconds=${FUZZ_SECONDS:-60}
if [ "$fuzz_seconds" -gt 0 ]; then
  stage "fuzzing (scripts/fuzz.sh $fuzz_seconds: each harness $fuzz_seconds s)"
  bash scripts/fuzz.sh "$fuzz_seconds" || status=1
else
  stage "fuzzing SKIPPED (FUZZ_SECONDS=0)"
fi

stage "wasm tests (node --test)"
wasm_tests=(tests/wasm/*.test.mjs)
if [ -e "${wasm_tests[0]}" ]; then
  node --test "${wasm_tests[@]}" || status=1
fi

stage "demo server and documentation link tests (node --test tests/server)"
node --test tests/server/*.test.mjs || status=1

if [ -d tests/browser ]; then
  browser_tests=(tests/browser/*.test.mjs)
  if [ -e "${browser_tests[0]}" ]; then
    stage "browser tests (chromium + playwright-core)"
    node --test --test-concurrency=1 "${browser_tests[@]}" || status=1
  fi
fi

stage "done"
exit $status
