#!/usr/bin/env bash
# The main job: the web demo (web/index.html and the attention lab), served from the repository root so that the
# page can import the wasm modules from ../wasm/dist.
set -euo pipefail
cd "$(dirname "$0")/.."
exec node scripts/serve.mjs
