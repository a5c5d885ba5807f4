#!/usr/bin/env bash
# Runs every test suite: native doctest binaries (CTest), then the wasm tests in Node.
# Assumes scripts/build.sh has run (npm test does both).
set -uo pipefail
cd "$(dirname "$0")/.."
status=0
# ctest runs the two doctest binaries side by side on 2 cores: threads that spin while they wait for each other
# (OpenMP's default) then slow everything down many times over; passive waiting does not.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}

echo "== native tests (ctest)"
ctest --test-dir build --output-on-failure -j 2 || status=1

echo "== wasm tests (node --test)"
wasm_tests=(tests/wasm/*.test.mjs)
if [ -e "${wasm_tests[0]}" ]; then
  node --test "${wasm_tests[@]}" || status=1
fi

if [ -d tests/browser ]; then
  browser_tests=(tests/browser/*.test.mjs)
  if [ -e "${browser_tests[0]}" ]; then
    echo "== browser tests (chromium + playwright-core)"
    node --test --test-concurrency=1 "${browser_tests[@]}" || status=1
  fi
fi

exit $status
