#!/usr/bin/env bash
# Every benchmark that exists in this build, one after another. Each prints `name value unit` lines.
set -euo pipefail
cd "$(dirname "$0")/.."
attend=build/bin/attend
available=$("$attend" bench --help 2>/dev/null || true)
for what in kernels train translate; do
  if grep -qE "^\s+$what\b" <<<"$available"; then
    echo "== attend bench $what"
    "$attend" bench "$what"
  fi
done
