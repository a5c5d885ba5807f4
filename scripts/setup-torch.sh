#!/usr/bin/env bash
# Optional: PyTorch for fixture generation (tools/) and as the peer in benchmarks. OpenBLAS is installed
# with it, or torch links the reference BLAS and every comparison flatters Attend twentyfold.
set -euo pipefail
missing=()
for p in python3-torch libopenblas0-pthread python3-numpy; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo_cmd=(); [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}"
fi
/usr/bin/python3 -c "import torch; print('torch', torch.__version__)"
