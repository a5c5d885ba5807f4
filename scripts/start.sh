#!/usr/bin/env bash
# The main job. Until the web demo lands, a tour of the kernels: their speed beside an unfused Eigen baseline.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -f web/index.html ] && [ -f scripts/serve.mjs ]; then
  exec node scripts/serve.mjs
fi
echo "Attend kernels (attend bench kernels):"
exec build/bin/attend bench kernels
