// A GemmBackend (train/gemm.h) over the core's SIMD vectors (kernels/simd.h): the WebAssembly SIMD build's default,
// where Eigen's GEMM runs scalar (its SSE path does not build for wasm). Register-blocked: three rows of C by four
// vectors of columns stay in registers while k runs, each A element broadcast once per block. Each element of C
// sums its products in k order, one at a time, whatever the blocking: the same call gives
// the same bits; natively it is a choice for tests and comparisons, not a default.
#pragma once
#include "train/gemm.h"

namespace attend {

const GemmBackend* simd_gemm_backend();

}  // namespace attend
