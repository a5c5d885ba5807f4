// cuBLAS row-major products against double-precision loops, and linear_forward_cuda / linear_backward_cuda against
// the CPU linear_forward / linear_backward (Eigen). FP32 GEMMs (no TF32): tolerance 1e-5 absolute + 1e-4 relative
// for inputs in [-1, 1] and K <= 300 (summation order differs between cuBLAS and Eigen). TF32 and BF16 GEMMs against
// the rounding bound of their inputs (see the case).
#include "cuda/cublas_linear.h"
#include "cuda_test_util.h"
#include "model/linear.h"
#include "train/linear_backward.h"
#include "train/gemm_precision.h"

#include <algorithm>
#include <cmath>

using namespace attend;
using namespace attend::cuda_test;

TEST_CASE("cuda: matmul_nt/nn/tn_cuda compute the row-major products they name") {
    ATTEND_REQUIRE_GPU();
    const int M = 37, N = 53, K = 29;
    const auto A = random_vector(size_t(M) * K, 20), Bnt = random_vector(size_t(N) * K, 21);
    const auto Bnn = random_vector(size_t(K) * N, 22), Atn = random_vector(size_t(K) * M, 23);
    const auto C0 = random_vector(size_t(M) * N, 24);
    const float alpha = 0.7f, beta = 0.3f;
    std::vector<float> nt(M * N), nn(M * N), tn(M * N);
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            double s_nt = 0, s_nn = 0, s_tn = 0;
            for (int k = 0; k < K; ++k) {
                s_nt += double(A[i * K + k]) * Bnt[j * K + k];
                s_nn += double(A[i * K + k]) * Bnn[k * N + j];
                s_tn += double(Atn[k * M + i]) * Bnn[k * N + j];
            }
            nt[i * N + j] = float(alpha * s_nt + beta * C0[i * N + j]);
            nn[i * N + j] = float(alpha * s_nn + beta * C0[i * N + j]);
            tn[i * N + j] = float(alpha * s_tn + beta * C0[i * N + j]);
        }
    auto dA = to_device(A), dBnt = to_device(Bnt), dBnn = to_device(Bnn), dAtn = to_device(Atn);
    auto dC = to_device(C0);
    cuda::matmul_nt_cuda(dC.get(), dA.get(), dBnt.get(), M, N, K, alpha, beta);
    check_close(dC.to_host(), nt, 1e-5, 1e-4, "matmul_nt");
    dC.upload(C0);
    cuda::matmul_nn_cuda(dC.get(), dA.get(), dBnn.get(), M, N, K, alpha, beta);
    check_close(dC.to_host(), nn, 1e-5, 1e-4, "matmul_nn");
    dC.upload(C0);
    cuda::matmul_tn_cuda(dC.get(), dAtn.get(), dBnn.get(), M, N, K, alpha, beta);
    check_close(dC.to_host(), tn, 1e-5, 1e-4, "matmul_tn");
}

TEST_CASE("cuda: linear_forward_cuda / linear_backward_cuda match the CPU linear layer") {
    ATTEND_REQUIRE_GPU();
    struct Case { int N, IC, OC; bool bias; };
    for (Case c : {Case{1, 1, 1, true}, Case{5, 16, 8, false}, Case{67, 128, 300, true}, Case{200, 256, 64, true}}) {
        CAPTURE(c.N);
        CAPTURE(c.IC);
        CAPTURE(c.OC);
        const auto x = random_vector(size_t(c.N) * c.IC, 30), W = random_vector(size_t(c.OC) * c.IC, 31);
        const auto b = random_vector(c.OC, 32), dout = random_vector(size_t(c.N) * c.OC, 33);
        const auto dx0 = random_vector(size_t(c.N) * c.IC, 34), dW0 = random_vector(size_t(c.OC) * c.IC, 35);
        const auto db0 = random_vector(c.OC, 36);
        std::vector<float> out(size_t(c.N) * c.OC), dx = dx0, dW = dW0, db = db0;
        linear_forward(out.data(), x.data(), W.data(), c.bias ? b.data() : nullptr, c.N, c.IC, c.OC);
        linear_backward(dx.data(), dW.data(), c.bias ? db.data() : nullptr, dout.data(), x.data(), W.data(), c.N,
                        c.IC, c.OC);

        auto dX = to_device(x), dWt = to_device(W), dB = to_device(b), dDout = to_device(dout);
        auto dDx = to_device(dx0), dDW = to_device(dW0), dDb = to_device(db0);
        DeviceBuffer<float> dOut(out.size());
        cuda::linear_forward_cuda(dOut.get(), dX.get(), dWt.get(), c.bias ? dB.get() : nullptr, c.N, c.IC, c.OC);
        cuda::linear_backward_cuda(dDx.get(), dDW.get(), c.bias ? dDb.get() : nullptr, dDout.get(), dX.get(),
                                   dWt.get(), c.N, c.IC, c.OC);
        check_close(dOut.to_host(), out, 1e-5, 1e-4, "linear forward");
        check_close(dDx.to_host(), dx, 1e-5, 1e-4, "linear backward dx (accumulating)");
        check_close(dDW.to_host(), dW, 1e-5, 1e-4, "linear backward dweight (accumulating)");
        check_close(dDb.to_host(), db, 1e-5, 1e-4, "linear backward dbias (accumulating)");
    }
}

TEST_CASE("cuda: TF32 and BF16 GEMMs stay within the rounding bound of their inputs") {
    ATTEND_REQUIRE_GPU();
    struct Restore {
        ~Restore() { cuda::set_gemm_precision(GemmPrecision::FP32); }
    } restore;
    const int M = 64, N = 96, K = 256;
    const auto A = random_vector(size_t(M) * K, 50), B = random_vector(size_t(N) * K, 51);
    std::vector<double> exact(size_t(M) * N), magnitude(size_t(M) * N);  // sum a b, sum |a b|
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j)
            for (int k = 0; k < K; ++k) {
                const double p = double(A[size_t(i) * K + k]) * B[size_t(j) * K + k];
                exact[size_t(i) * N + j] += p;
                magnitude[size_t(i) * N + j] += std::fabs(p);
            }
    auto dA = to_device(A), dB = to_device(B);
    cuda::DeviceBuffer<float> dC(size_t(M) * N);
    // Each input rounded to nearest with unit roundoff u makes a product off by at most (2u + u^2) of |a b|; FP32
    // sums add at most K 2^-24 of the sum of |a b|. The bound holds whether or not cuBLAS takes the tensor-core path
    // (it may keep FP32), so the error is printed, not required to be large.
    struct Case { GemmPrecision precision; double u; };
    for (const Case c : {Case{GemmPrecision::TF32, std::ldexp(1.0, -11)}, Case{GemmPrecision::BF16, std::ldexp(1.0, -8)}}) {
        CAPTURE(gemm_precision_name(c.precision));
        cuda::set_gemm_precision(c.precision);
        CHECK(cuda::gemm_precision() == c.precision);
        cuda::matmul_nt_cuda(dC.get(), dA.get(), dB.get(), M, N, K);
        const std::vector<float> got = dC.to_host();
        double worst = 0;  // error / (sum |a b|)
        for (size_t e = 0; e < got.size(); ++e) {
            const double bound = (2 * c.u + c.u * c.u + K * std::ldexp(1.0, -24)) * magnitude[e];
            const double error = std::fabs(double(got[e]) - exact[e]);
            if (error > bound) FAIL_CHECK("element " << e << ": " << got[e] << " vs " << exact[e] << ", bound " << bound);
            worst = std::max(worst, error / magnitude[e]);
        }
        MESSAGE(gemm_precision_name(c.precision) << " GEMM: largest error " << worst << " of sum |a b| (bound "
                                                 << 2 * c.u + K * std::ldexp(1.0, -24) << ")");
    }
}
