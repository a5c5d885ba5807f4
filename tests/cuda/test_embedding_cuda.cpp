// Embedding lookup, positional encoding and the embedding backward against the CPU kernels.
// Tolerances: forward exact (a scaled copy); positional encoding 2e-6 + 1.2e-7 x (largest position) absolute
// (CUDA's sinf/cosf vs glibc's, plus two ulps of inv_freq should glibc's powf not be correctly rounded); backward
// 1e-5 absolute + 1e-5 relative (the CPU's order of addition, but either compiler may fuse a multiply-add), and the
// same bits on every GPU run.
#include "cuda/embedding_cuda.h"
#include "cuda/device_memory.h"
#include "error.h"
#include "cuda_test_util.h"
#include "kernels/embedding.h"
#include "kernels/positional_encoding.h"
#include "train/embedding_backward.h"

#include <cmath>
#include <cstring>

using namespace attend;
using namespace attend::cuda_test;

TEST_CASE("cuda: embedding_forward_cuda matches the CPU; an out-of-range id gives a NaN row") {
    ATTEND_REQUIRE_GPU();
    const int N = 77, C = 96, V = 50;
    const auto table = random_vector(size_t(V) * C, 40);
    const auto ids = random_ints(N, 41, 0, V - 1);
    const float scale = std::sqrt(float(C));
    std::vector<float> out(size_t(N) * C);
    embedding_forward(out.data(), ids.data(), table.data(), scale, N, C, V);
    auto dT = to_device(table);
    auto dIds = to_device(ids);
    DeviceBuffer<float> dOut(out.size());
    cuda::embedding_forward_cuda(dOut.get(), dIds.get(), dT.get(), scale, N, C, V);
    check_close(dOut.to_host(), out, 0.0, 0.0, "embedding forward");

    std::vector<int> bad = ids;
    bad[3] = V;
    dIds.upload(bad);
    cuda::embedding_forward_cuda(dOut.get(), dIds.get(), dT.get(), scale, N, C, V);
    const auto got = dOut.to_host();
    CHECK(std::isnan(got[size_t(3) * C]));
    CHECK(got[0] == out[0]);
}

TEST_CASE("cuda: positional_encoding_add_cuda matches the CPU (t0 = 0 and t0 > 0, odd C)") {
    ATTEND_REQUIRE_GPU();
    for (int C : {64, 33}) {
        for (int t0 : {0, 17}) {
            CAPTURE(C);
            CAPTURE(t0);
            const int B = 3, T = 150;
            auto x = random_vector(size_t(B) * T * C, 42);
            auto dX = to_device(x);
            positional_encoding_add(x.data(), B, T, C, t0);
            cuda::positional_encoding_add_cuda(dX.get(), B, T, C, t0);
            check_close(dX.to_host(), x, 2e-6 + 1.2e-7 * (t0 + T), 0.0, "positional encoding add");
        }
    }
}

TEST_CASE("cuda: embedding_backward_cuda matches the CPU (repeated ids, padding_idx skipped, accumulating), the same "
          "bits on every run") {
    ATTEND_REQUIRE_GPU();
    const int N = 500, C = 80, V = 40, pad = 1;
    const auto ids = random_ints(N, 43, 0, V - 1);  // many repeats
    const auto dout = random_vector(size_t(N) * C, 44);
    const auto dtable0 = random_vector(size_t(V) * C, 45);
    std::vector<float> dtable = dtable0;
    embedding_backward(dtable.data(), dout.data(), ids.data(), 2.5f, pad, N, C, V);
    auto dIds = to_device(ids);
    auto dDout = to_device(dout);
    const size_t bytes = cuda::embedding_backward_scratch_bytes(N);
    cuda::DeviceBuffer<char> scratch(bytes);
    std::vector<float> first;
    for (int run = 0; run < 3; ++run) {
        CAPTURE(run);
        auto dDt = to_device(dtable0);
        cuda::embedding_backward_cuda(dDt.get(), dDout.get(), dIds.get(), 2.5f, pad, N, C, V, scratch.get(), bytes);
        const auto got = dDt.to_host();
        check_close(got, dtable, 1e-5, 1e-5, "embedding backward");
        for (int c = 0; c < C; ++c) REQUIRE(got[size_t(pad) * C + c] == dtable0[size_t(pad) * C + c]);
        if (run == 0) first = got;
        // Rows with many repeated ids are where an atomic sum's order would show.
        CHECK(std::memcmp(got.data(), first.data(), got.size() * sizeof(float)) == 0);
    }
    auto dDt = to_device(dtable0);
    CHECK_THROWS_WITH_AS(cuda::embedding_backward_cuda(dDt.get(), dDout.get(), dIds.get(), 2.5f, pad, N, C, V,
                                                       scratch.get(), bytes - 1),
                         doctest::Contains("bytes of scratch for 500 ids"), Error);
}
