// The native build's training GEMMs (train/gemm.h's seam): OpenBLAS where CMake found its OpenMP build, else the
// core's Eigen. Every native entry point that trains installs it (the CLI at start, train_translator and the
// language-model trainer), so one process keeps one backend.
#pragma once
#include <string>

namespace attend {

// Installs this build's backend for every later product (idempotent).
void use_native_gemm();

// Where the environment's OPENBLAS_CORETYPE holds OpenBLAS to kernels narrower than the CPU runs (AVX2 "Haswell" on
// a CPU with AVX-512, which OpenBLAS would choose itself without the variable: 1.4x the training step on an AMD Zen
// 5), a sentence that says so; "" otherwise. The variable is the user's to keep: this only tells.
std::string gemm_kernel_note();

}  // namespace attend
