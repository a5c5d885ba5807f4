// dropout_forward_cuda / dropout_backward_cuda against core/model/dropout + core/train/dropout: the masks must
// be bit-identical (exact comparison, tolerance 0), and the device RNG must equal the CPU RNG.
#include "cuda/dropout_cuda.h"
#include "cuda/dropout_rng.cuh"
#include "cuda_test_util.h"
#include "train/dropout.h"

using namespace attend;
using namespace attend::cuda_test;

TEST_CASE("cuda: the device RNG functions equal the CPU's (host-side check, runs without a GPU)") {
    // dropout_rng.cuh is __host__ __device__: the same code the kernels run, evaluated here on the host.
    size_t mismatches = 0, checked = 0;
    for (uint64_t seed : {0ull, 1ull, 42ull, 0xDEADBEEFCAFEull})
        for (uint64_t c = 0; c < 100000; c += 7, ++checked) {
            mismatches += cuda::mix64_dev(seed ^ c) != mix64(seed ^ c);
            mismatches += cuda::uniform_at_dev(seed, c) != uniform_at(seed, c);
        }
    const Dropout d{0.3f, 7, 1000};
    const cuda::DropoutDev dd{d.p, d.seed, d.offset};
    for (uint64_t i = 0; i < 10000; ++i, ++checked) mismatches += dd.keep(i) != d.keep(i);
    CHECK_MESSAGE(mismatches == 0, mismatches << " of " << checked << " RNG values differ between device and CPU code");
    CHECK(dd.scale() == d.scale());
}

TEST_CASE("cuda: dropout_forward_cuda / dropout_backward_cuda are bit-identical to the CPU (tolerance 0)") {
    ATTEND_REQUIRE_GPU();
    for (float p : {0.0f, 0.1f, 0.5f, 1.0f}) {
        const int64_t n = 100003;
        const Dropout d{p, 1234, 5678};
        const auto x = random_vector(n, 2);
        const auto dout = random_vector(n, 3);
        const auto dx0 = random_vector(n, 4);
        std::vector<float> out(n), dx = dx0;
        dropout_forward(out.data(), x.data(), d, n);
        dropout_backward(dx.data(), dout.data(), d, n);

        auto dX = to_device(x), dOut = DeviceBuffer<float>(n), dDout = to_device(dout), dDx = to_device(dx0);
        cuda::dropout_forward_cuda(dOut.get(), dX.get(), d, n);
        cuda::dropout_backward_cuda(dDx.get(), dDout.get(), d, n);
        CAPTURE(p);
        check_close(dOut.to_host(), out, 0.0, 0.0, "dropout forward");
        check_close(dDx.to_host(), dx, 0.0, 0.0, "dropout backward");
        // In place.
        cuda::dropout_forward_cuda(dX.get(), dX.get(), d, n);
        check_close(dX.to_host(), out, 0.0, 0.0, "dropout forward in place");
    }
}
