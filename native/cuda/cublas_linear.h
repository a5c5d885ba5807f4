// Matrix products on the GPU through cuBLAS, in Attend's row-major layout, and the linear layer built on them
// (CUDA mirrors of core/model/linear.h and core/train/linear_backward.h).
//
// cuBLAS is column-major; a row-major [M, N] matrix is the column-major [N, M] matrix, so row-major
// C = A op B is computed as column-major C^T = op(B)^T A^T by swapping the operands (see cublas_linear.cu).
// FP32 arithmetic (results match the CPU to ~1e-6) unless set_gemm_precision chooses TF32 or BF16 tensor cores, where
// cuBLAS rounds the FP32 inputs itself (CUBLAS_COMPUTE_32F_FAST_TF32 / _FAST_16BF) and sums in FP32: the operands
// and results stay FP32 buffers.
// All pointers are device pointers; calls are asynchronous on the default stream.
#pragma once
#include "train/gemm_precision.h"

#include <cublas_v2.h>

namespace attend::cuda {

cublasHandle_t cublas_handle();  // one per thread, created on first use
// The process's GEMM arithmetic from now on (train/gemm_precision.h); FP32 until set.
void set_gemm_precision(GemmPrecision precision);
GemmPrecision gemm_precision();

// C[M,N] = alpha * A[M,K] . B[N,K]^T + beta * C      (Eigen: C = A * B.transpose())
void matmul_nt_cuda(float* C, const float* A, const float* B, int M, int N, int K, float alpha = 1.0f,
                    float beta = 0.0f);
// C[M,N] = alpha * A[M,K] . B[K,N] + beta * C         (Eigen: C = A * B)
void matmul_nn_cuda(float* C, const float* A, const float* B, int M, int N, int K, float alpha = 1.0f,
                    float beta = 0.0f);
// C[M,N] = alpha * A[K,M]^T . B[K,N] + beta * C       (Eigen: C = A.transpose() * B)
void matmul_tn_cuda(float* C, const float* A, const float* B, int M, int N, int K, float alpha = 1.0f,
                    float beta = 0.0f);

// CPU: linear_forward (core/model/linear.h). out [N, OC] = x [N, IC] . weight [OC, IC]^T + bias [OC] (or null).
void linear_forward_cuda(float* out, const float* x, const float* weight, const float* bias, int N, int IC, int OC);

// CPU: linear_backward (core/train/linear_backward.h). Every gradient ACCUMULATES (+=).
// dx [N, IC] or null, dweight [OC, IC] (or null: skipped, an addition over the CPU kernel), dbias [OC] or null, dout [N, OC], x [N, IC], weight [OC, IC].
void linear_backward_cuda(float* dx, float* dweight, float* dbias, const float* dout, const float* x,
                          const float* weight, int N, int IC, int OC);

}  // namespace attend::cuda
