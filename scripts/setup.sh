#!/usr/bin/env bash
# Installs everything Attend needs on a Debian bookworm machine: the Debian packages and the npm packages.
# Idempotent and quick when everything is already there (it checks before it installs).
set -euo pipefail
cd "$(dirname "$0")/.."

# Build and test dependencies (ccache: the five trees of scripts/build.sh and scripts/fuzz.sh recompile only what
# changed, in a fresh clone too; clang-14 + libfuzzer-14-dev: the fuzz harnesses, scripts/fuzz.sh; OpenMPI: data-parallel
# training, `mpirun -np N attend train`; OpenBLAS's OpenMP build: the training GEMMs; SentencePiece: subword models
# trained on raw text, and the reference the portable encoder in core/ is checked against; fonts-wqy-zenhei: Chinese
# characters in the page and its browser tests, where chromium finds no other font that has them). python3-torch is not here: it
# only generates fixtures and is a benchmark peer (scripts/setup-torch.sh installs it); the test suite never needs it.
packages=(
  cmake ninja-build g++ make pkg-config ccache
  libeigen3-dev libxsimd-dev doctest-dev nlohmann-json3-dev libcli11-dev zlib1g-dev
  emscripten binaryen
  chromium fonts-wqy-zenhei
  clang-14 libfuzzer-14-dev
  openmpi-bin libopenmpi-dev
  libopenblas-openmp-dev
  sentencepiece libsentencepiece-dev
)

missing=()
# Node.js comes with the machine (NodeSource's nodejs bundles npm); only a machine without it gets Debian's.
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# npm packages (playwright-core drives Debian's chromium; no browser download).
if [ -f package-lock.json ]; then
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    echo "setup: installing npm packages"
    npm ci --no-audit --no-fund --loglevel=error
  fi
elif [ ! -d node_modules ]; then
  npm install --no-audit --no-fund --loglevel=error
fi
echo "setup: ok"
