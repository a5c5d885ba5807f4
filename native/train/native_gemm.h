// The native build's training GEMMs (train/gemm.h's seam): OpenBLAS where CMake found its OpenMP build, else the
// core's Eigen. Every native entry point that trains installs it (the CLI at start, train_translator and the
// language-model trainer), so one process keeps one backend.
#pragma once
#include <string>

namespace attend {

// Installs this build's backend for every later product (idempotent).
void use_native_gemm();

// Where OpenBLAS runs kernels narrower than the CPU runs, a sentence that says so and names the variable that
// changes it; "" otherwise. Either the environment's OPENBLAS_CORETYPE holds it there (AVX2 "Haswell" on a CPU with
// AVX-512: 1.4x the training step on an AMD Zen 5), or OpenBLAS did not recognise the CPU model and fell back to
// its oldest kernels (a virtual machine's "Intel Xeon Processor" with AVX-512 gets Prescott's SSE3 ones: 2x the
// character LMs' step with OPENBLAS_CORETYPE=SkylakeX). The variable is the user's to set: this only tells.
std::string gemm_kernel_note();

}  // namespace attend
