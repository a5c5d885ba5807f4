#!/usr/bin/env bash
# compute-sanitizer over test_cuda on a machine with an NVIDIA GPU: memcheck (out-of-bounds and misaligned accesses,
# leaks of device memory) and racecheck (shared-memory hazards) over every case but the throughput one, which only
# repeats the training step the other cases already cover, and those that run `attend train` in child processes (under
# mpirun and NCCL, or with TF32 and BF16 products): the sanitizer would follow every child, for minutes, through the
# step the Transformer cases check, with the precisions the linear cases check. racecheck also leaves out the case
# that repeats training bit for bit: its 72 steps launch only kernels that the 30-step case runs under racecheck
# (train_step is queue_train_step then take_loss), and racecheck looks for hazards inside a kernel's shared memory, so
# they add minutes and nothing it could find. Run it alone on the GPU: beside training runs under CUDA MPS its own
# context time-slices with theirs and halves their tokens/s. Any finding exits non-zero. API errors are not reported:
# some cases provoke them on purpose (a copy with bad arguments must become an attend::Error naming the call), and
# every runtime call outside those is checked by CUDA_CHECK, which fails its case.
#   scripts/cuda-sanitize.sh [path/to/test_cuda]   (default build/bin/test_cuda)
set -euo pipefail
bin=${1:-build/bin/test_cuda}
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
[ -x "$sanitizer" ] || { echo "cuda-sanitize: compute-sanitizer not found (CUDA toolkit)" >&2; exit 2; }
[ -x "$bin" ] || { echo "cuda-sanitize: $bin not found: build test_cuda first" >&2; exit 2; }
left_out="*throughput*,*rank*,*NCCL*,*attend train*"
for tool in memcheck racecheck; do
    extra=(--leak-check full) cases=$left_out
    [ "$tool" = racecheck ] && extra=() cases="$left_out,*repeats bit for bit*"
    echo "== compute-sanitizer --tool $tool"
    start=$SECONDS
    "$sanitizer" --tool "$tool" "${extra[@]}" --report-api-errors no --error-exitcode 1 "$bin" -tce="$cases"
    echo "== $tool: $((SECONDS - start)) s"
done
echo "cuda-sanitize: memcheck and racecheck clean"
