// gemm_accumulate through each backend (the core's Eigen and SIMD kernel, and the native build's: OpenBLAS where it
// links it) against a double-precision reference, and the repeatability the trainer relies on.
#include "train/gemm.h"
#include "train/gemm_simd.h"
#include "train/native_gemm.h"
#include "model/linear.h"
#include "train/linear_backward.h"
#include "transformer_test_util.h"

#include <doctest/doctest.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <string>

using namespace attend;
using namespace attend_test;

namespace {

// op(A) [M, K], op(B) [K, N], each stored row-major with its leading dimension.
std::vector<double> reference(const std::vector<float>& A, int lda, bool ta, const std::vector<float>& B, int ldb,
                              bool tb, int M, int N, int K) {
    std::vector<double> C(size_t(M) * N);
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            double s = 0;
            for (int k = 0; k < K; ++k)
                s += double(ta ? A[size_t(k) * lda + i] : A[size_t(i) * lda + k]) *
                     double(tb ? B[size_t(j) * ldb + k] : B[size_t(k) * ldb + j]);
            C[size_t(i) * N + j] = s;
        }
    return C;
}

}  // namespace

TEST_CASE("gemm_accumulate: C += op(A) op(B) for each transpose, with leading dimensions wider than the rows") {
    // Eigen (the native build's default), this build's own (OpenBLAS where it links it), the core's SIMD kernel
    // (WebAssembly SIMD's default; 37 rows and 29 columns leave partial blocks on both).
    for (int backend = 0; backend < 3; backend++) {
        set_gemm_backend(nullptr);
        if (backend == 0) CHECK(std::string(gemm_backend()) == "Eigen");
        if (backend == 1) use_native_gemm();
        if (backend == 2) set_gemm_backend(simd_gemm_backend());
        INFO("backend: " << gemm_backend());
        const int M = 37, N = 29, K = 53, pad = 5;
        Rng rng(7);
        for (bool ta : {false, true})
            for (bool tb : {false, true}) {
                CAPTURE(ta);
                CAPTURE(tb);
                const int lda = (ta ? M : K) + pad, ldb = (tb ? K : N) + pad, ldc = N + pad;
                const auto A = random_floats(size_t(ta ? K : M) * lda, rng);
                const auto B = random_floats(size_t(tb ? N : K) * ldb, rng);
                std::vector<float> C(size_t(M) * ldc, 0.75f);
                gemm_accumulate(C.data(), ldc, A.data(), lda, ta, B.data(), ldb, tb, M, N, K);
                const std::vector<double> ref = reference(A, lda, ta, B, ldb, tb, M, N, K);
                std::vector<float> got(size_t(M) * N);
                std::vector<double> want(size_t(M) * N);
                for (int i = 0; i < M; ++i)
                    for (int j = 0; j < N; ++j) {
                        got[size_t(i) * N + j] = C[size_t(i) * ldc + j];
                        want[size_t(i) * N + j] = ref[size_t(i) * N + j] + 0.75;
                    }
                CHECK(relative_error(got, want) < 1e-5);
                for (int i = 0; i < M; ++i)  // the padding between rows is not written
                    for (int j = N; j < ldc; ++j) CHECK(C[size_t(i) * ldc + j] == 0.75f);
            }
        std::vector<float> C(4, 1.0f);
        gemm_accumulate(C.data(), 2, nullptr, 1, false, nullptr, 2, false, 0, 2, 1);  // M = 0: nothing to do
        gemm_accumulate(C.data(), 2, nullptr, 1, false, nullptr, 2, false, 2, 0, 1);  // N = 0
        for (float v : C) CHECK(v == 1.0f);
    }
    use_native_gemm();  // what the rest of this process trains with
}

TEST_CASE("the core's SIMD kernel: every edge of its blocks (rows and vectors of columns short of a block)") {
    // Blocks of 3 rows by 4 vectors: rows 1-7 leave 0-2 rows over, columns 1-70 leave partial vectors and blocks of
    // 1-3 vectors on every vector width (4 in SSE and WebAssembly, 8, 16); K = 0 leaves C as it is.
    set_gemm_backend(simd_gemm_backend());
    Rng rng(11);
    for (int M : {1, 2, 3, 4, 5, 7})
        for (int N : {1, 3, 4, 5, 8, 12, 16, 17, 33, 70})
            for (int K : {0, 1, 9})
                for (bool ta : {false, true})
                    for (bool tb : {false, true}) {
                        CAPTURE(M); CAPTURE(N); CAPTURE(K); CAPTURE(ta); CAPTURE(tb);
                        const int lda = ta ? M : K, ldb = tb ? K : N;
                        const auto A = random_floats(size_t(std::max(1, ta ? K : M)) * std::max(1, lda), rng);
                        const auto B = random_floats(size_t(std::max(1, tb ? N : K)) * std::max(1, ldb), rng);
                        std::vector<float> C = random_floats(size_t(M) * N, rng);
                        const std::vector<float> C0 = C;
                        gemm_accumulate(C.data(), N, A.data(), lda, ta, B.data(), ldb, tb, M, N, K);
                        const std::vector<double> ref = reference(A, lda, ta, B, ldb, tb, M, N, K);
                        std::vector<double> want(size_t(M) * N);
                        for (size_t i = 0; i < want.size(); ++i) want[i] = ref[i] + C0[i];
                        CHECK(relative_error(C, want) < 1e-5);
                    }
    use_native_gemm();
}

TEST_CASE("gemm_accumulate and linear_backward repeat bit for bit, wherever the buffers lie") {
    // What a resumed training run relies on to equal an uninterrupted one: the same product gives the same bits,
    // also from copies of its inputs at other addresses (another process's buffers). Splitting a product into
    // other blocks (another thread count) may round differently, in Eigen as in OpenBLAS: not promised.
    const int N = 203, IC = 128, OC = 300;
    Rng rng(11);
    const auto dY = random_floats(size_t(N) * OC, rng), W = random_floats(size_t(OC) * IC, rng),
               X = random_floats(size_t(N) * IC, rng);
    auto product = [&](int shift) {  // the inputs copied `shift` floats into fresh buffers
        std::vector<float> a(dY.size() + shift), b(W.size() + shift), x(X.size() + shift),
            dx(size_t(N) * IC + shift, 0.5f), dw(size_t(OC) * IC + shift, -0.25f);
        std::copy(dY.begin(), dY.end(), a.begin() + shift);
        std::copy(W.begin(), W.end(), b.begin() + shift);
        std::copy(X.begin(), X.end(), x.begin() + shift);
        gemm_accumulate(dx.data() + shift, IC, a.data() + shift, OC, false, b.data() + shift, IC, false, N, IC, OC);
        gemm_accumulate(dw.data() + shift, IC, a.data() + shift, OC, true, x.data() + shift, IC, false, OC, IC, N);
        std::vector<float> out(dx.begin() + shift, dx.end());
        out.insert(out.end(), dw.begin() + shift, dw.end());
        return out;
    };
    const std::vector<float> first = product(0);
    CHECK(product(0) == first);
    CHECK(product(1) == first);
    CHECK(product(3) == first);

    auto backward = [&] {  // on two threads, as a training run
        std::vector<float> dx(X.size(), 0.5f), dw(W.size(), -0.25f), db(OC, 1.0f);
        linear_backward(dx.data(), dw.data(), db.data(), dY.data(), X.data(), W.data(), N, IC, OC);
        dx.insert(dx.end(), dw.begin(), dw.end());
        dx.insert(dx.end(), db.begin(), db.end());
        return dx;
    };
    const int threads_before = omp_get_max_threads();
    omp_set_num_threads(2);
    const std::vector<float> once = backward();
    CHECK(backward() == once);
    omp_set_num_threads(threads_before);
}

TEST_CASE("linear_forward_gemm: linear_forward's results, with and without bias and input, on 1 and 2 threads") {
    Rng rng(13);
    const int saved = omp_get_max_threads();
    for (auto [N, IC, OC] : {std::array<int, 3>{5, 7, 3}, std::array<int, 3>{300, 128, 257}})
        for (bool with_bias : {false, true})
            for (int threads : {1, 2}) {
                CAPTURE(N);
                CAPTURE(with_bias);
                CAPTURE(threads);
                omp_set_num_threads(threads);
                const auto x = random_floats(size_t(N) * IC, rng), w = random_floats(size_t(OC) * IC, rng),
                           b = random_floats(OC, rng);
                const float* bias = with_bias ? b.data() : nullptr;
                std::vector<float> want(size_t(N) * OC), got(want.size(), 9.0f);
                linear_forward(want.data(), x.data(), w.data(), bias, N, IC, OC);
                linear_forward_gemm(got.data(), x.data(), w.data(), bias, N, IC, OC);
                CHECK(relative_error(got, to_double(want)) < 1e-5);
                linear_forward(want.data(), nullptr, w.data(), bias, N, IC, OC);
                linear_forward_gemm(got.data(), nullptr, w.data(), bias, N, IC, OC);
                CHECK(got == want);  // no input: the bias rows (zeros without bias)
            }
    omp_set_num_threads(saved);
}
