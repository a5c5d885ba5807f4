#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: every check the CUDA backend owes there, in one command that prints its figures.
# Stops at the first failure; a GPU test that says SKIPPED counts as one (here the GPU must be used).
#   scripts/gpu-check.sh [build folder]      (default build/; ATTEND_DATA names the Multi30K folder if not ../shared)
# Each step is short enough for a 10-minute command; the benchmark needs PyTorch for its peer (ATTEND_PYTHON).
set -euo pipefail
cd "$(dirname "$0")/.."
b=${1:-build}
export OMP_WAIT_POLICY=passive
step() { echo; echo "== $*"; }
no_skips() { if grep -q SKIPPED "$1"; then echo "gpu-check: a GPU test was skipped (see $1)" >&2; exit 1; fi; }
log=$(mktemp -d)

step "devices"
"$b/bin/attend" devices
step "test_cuda (every kernel against the CPU, the Transformer step, data-parallel ranks, NCCL)"
"$b/bin/test_cuda" 2>&1 | tee "$log/test_cuda.txt" | tail -4
no_skips "$log/test_cuda.txt"
step "test_native: the GPU trainer follows the CPU's"
"$b/bin/test_native" -tc="*train device*" 2>&1 | tee "$log/train_device.txt" | tail -4
no_skips "$log/train_device.txt"
step "bench: the 11.7M configuration and the transformer-tiny shape, FP32, TF32 and BF16"
"$b/bin/attend" bench train --device cuda
"$b/bin/attend" bench train --device cuda --precision tf32
"$b/bin/attend" bench train --device cuda --precision bf16
"$b/bin/attend" bench train --device cuda --model-dim 128 --heads 4 --layers 4 --ffn 256 --vocab 10000 --batch 128 \
    --length 32
# Last, because it takes longest (several minutes on an H200): a time-limited session still gets the figures above.
step "compute-sanitizer"
scripts/cuda-sanitize.sh "$b/bin/test_cuda" 2>&1 | tail -6
echo
echo "gpu-check: all passed"
