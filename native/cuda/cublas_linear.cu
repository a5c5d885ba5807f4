#include "cuda/cublas_linear.h"

#include "cuda/cuda_check.h"
#include "cuda/column_sum.cuh"
#include "cuda/cuda_common.cuh"

namespace attend::cuda {

namespace {

struct HandleHolder {
    cublasHandle_t handle = nullptr;
    ~HandleHolder() {
        if (handle) cublasDestroy(handle);
    }
};

GemmPrecision g_precision = GemmPrecision::FP32;

cublasComputeType_t compute_type() {
    switch (g_precision) {
        case GemmPrecision::TF32: return CUBLAS_COMPUTE_32F_FAST_TF32;
        case GemmPrecision::BF16: return CUBLAS_COMPUTE_32F_FAST_16BF;
        case GemmPrecision::FP32: break;
    }
    return CUBLAS_COMPUTE_32F;
}

// Column-major C [m, n] = alpha op(A) op(B) + beta C on FP32 buffers, in the process's GEMM arithmetic.
void gemm(cublasOperation_t op_a, cublasOperation_t op_b, int m, int n, int k, float alpha, const float* A, int lda,
          const float* B, int ldb, float beta, float* C, int ldc) {
    CUBLAS_CHECK(cublasGemmEx(cublas_handle(), op_a, op_b, m, n, k, &alpha, A, CUDA_R_32F, lda, B, CUDA_R_32F, ldb,
                              &beta, C, CUDA_R_32F, ldc, compute_type(), CUBLAS_GEMM_DEFAULT));
}

// out[n, :] = bias  (out [N, OC], bias [OC]); the GEMM then adds x W^T with beta = 1.
__global__ void broadcast_rows_kernel(float* out, const float* bias, int N, int OC) {
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < (long long)N * OC) out[i] = bias[i % OC];
}

// dbias[c] += sum_n dout[n, c] (column_sum_cuda).
struct RowsOf {
    const float* x;
    int C;
    __device__ float operator()(int n, int c) const { return x[(size_t)n * C + c]; }
};

}  // namespace

cublasHandle_t cublas_handle() {
    thread_local HandleHolder holder;
    if (!holder.handle) CUBLAS_CHECK(cublasCreate(&holder.handle));  // default math: the compute type decides
    return holder.handle;
}

void set_gemm_precision(GemmPrecision precision) { g_precision = precision; }
GemmPrecision gemm_precision() { return g_precision; }

// Row-major X[r, c] is column-major X^T. Row-major C = A B^T  <=>  column-major C^T = B A^T:
// the column-major B [K, N] (= row-major B [N, K]) transposed, times the column-major A^T [K, M].
void matmul_nt_cuda(float* C, const float* A, const float* B, int M, int N, int K, float alpha, float beta) {
    if (M == 0 || N == 0) return;
    gemm(CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, alpha, B, K, A, K, beta, C, N);
}

// Row-major C = A B  <=>  column-major C^T = B^T A^T, both already column-major as stored.
void matmul_nn_cuda(float* C, const float* A, const float* B, int M, int N, int K, float alpha, float beta) {
    if (M == 0 || N == 0) return;
    gemm(CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, alpha, B, N, A, K, beta, C, N);
}

// Row-major C = A^T B (A [K, M])  <=>  column-major C^T = B^T A, with A's storage the column-major A^T [M, K].
void matmul_tn_cuda(float* C, const float* A, const float* B, int M, int N, int K, float alpha, float beta) {
    if (M == 0 || N == 0) return;
    gemm(CUBLAS_OP_N, CUBLAS_OP_T, N, M, K, alpha, B, N, A, M, beta, C, N);
}

void linear_forward_cuda(float* out, const float* x, const float* weight, const float* bias, int N, int IC, int OC) {
    float beta = 0.0f;
    if (bias) {
        const long long n = (long long)N * OC;
        if (n > 0) {
            broadcast_rows_kernel<<<ceil_div(n, 256), 256>>>(out, bias, N, OC);
            CUDA_CHECK_LAUNCH("broadcast_rows_kernel (linear_forward_cuda bias)");
        }
        beta = 1.0f;
    }
    matmul_nt_cuda(out, x, weight, N, OC, IC, 1.0f, beta);
}

void linear_backward_cuda(float* dx, float* dweight, float* dbias, const float* dout, const float* x,
                          const float* weight, int N, int IC, int OC) {
    if (dx) matmul_nn_cuda(dx, dout, weight, N, IC, OC, 1.0f, 1.0f);    // dx [N,IC] += dout [N,OC] W [OC,IC]
    if (dweight) matmul_tn_cuda(dweight, dout, x, OC, IC, N, 1.0f, 1.0f);            // dW [OC,IC] += dout^T x
    if (dbias && OC > 0) {
        column_sum_cuda(dbias, RowsOf{dout, OC}, N, OC, "column_partials_kernel (linear_backward_cuda bias)");
    }
}

}  // namespace attend::cuda
