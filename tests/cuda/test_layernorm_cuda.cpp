// layernorm_forward_cuda / layernorm_backward_cuda against the CPU kernels: with and without weight/bias, rows with
// a mean far from zero, C not a multiple of 32, in place. Tolerance 1e-5 absolute + 1e-4 relative (block reductions
// add in a different order than the CPU's SIMD lanes), plus, for the forward output, what the mean's own rounding
// allows: both sides compute the row mean in float, and when |mean| >> std (rows offset by 100, std 0.58) a few
// ulps of the mean (4 * FLT_EPSILON * |offset|) move every normalized output by that much over std, times |weight|.
#include "cuda/layernorm_cuda.h"
#include "cuda_test_util.h"
#include "kernels/layernorm.h"
#include "train/layernorm_backward.h"

#include <cfloat>
#include <cmath>

using namespace attend;
using namespace attend::cuda_test;

TEST_CASE("cuda: layernorm forward and backward match the CPU") {
    ATTEND_REQUIRE_GPU();
    struct Case { int N, C; bool affine; float offset; };
    for (Case c : {Case{1, 1, true, 0.0f}, Case{7, 33, true, 0.0f}, Case{64, 128, false, 0.0f},
                   Case{300, 512, true, 100.0f}, Case{5, 1000, true, -3.0f}}) {
        CAPTURE(c.N);
        CAPTURE(c.C);
        CAPTURE(c.affine);
        const size_t n = size_t(c.N) * c.C;
        auto x = random_vector(n, 50);
        for (auto& v : x) v += c.offset;
        const auto w = random_vector(c.C, 51, 0.5f, 1.5f), b = random_vector(c.C, 52);
        const auto dout = random_vector(n, 53), dx0 = random_vector(n, 54);
        const auto dw0 = random_vector(c.C, 55), db0 = random_vector(c.C, 56);
        const float* W = c.affine ? w.data() : nullptr;
        const float* Bv = c.affine ? b.data() : nullptr;
        std::vector<float> out(n), mean(c.N), rstd(c.N), dx = dx0, dw = dw0, db = db0;
        layernorm_forward(out.data(), mean.data(), rstd.data(), x.data(), W, Bv, 1e-5f, c.N, c.C);
        layernorm_backward(dx.data(), c.affine ? dw.data() : nullptr, c.affine ? db.data() : nullptr, dout.data(),
                           x.data(), mean.data(), rstd.data(), W, c.N, c.C);

        auto dX = to_device(x), dW = to_device(w), dB = to_device(b), dDout = to_device(dout);
        auto dDx = to_device(dx0), dDw = to_device(dw0), dDb = to_device(db0);
        DeviceBuffer<float> dOut(n), dMean(c.N), dRstd(c.N);
        cuda::layernorm_forward_cuda(dOut.get(), dMean.get(), dRstd.get(), dX.get(), c.affine ? dW.get() : nullptr,
                                     c.affine ? dB.get() : nullptr, 1e-5f, c.N, c.C);
        const double x_std = std::sqrt(1.0 / 3.0);  // random_vector: uniform in [-1, 1)
        const double mean_ulps = 4 * FLT_EPSILON * std::fabs(c.offset) / x_std * 1.5;  // |weight| < 1.5
        check_close(dOut.to_host(), out, 1e-5 + mean_ulps, 1e-4, "layernorm forward out");
        check_close(dMean.to_host(), mean, 1e-5, 1e-5, "layernorm forward mean");
        check_close(dRstd.to_host(), rstd, 1e-5, 1e-4, "layernorm forward rstd");
        // The backward from the CPU's saved statistics, so that only the backward is compared.
        dMean.upload(mean);
        dRstd.upload(rstd);
        cuda::layernorm_backward_cuda(dDx.get(), c.affine ? dDw.get() : nullptr, c.affine ? dDb.get() : nullptr,
                                      dDout.get(), dX.get(), dMean.get(), dRstd.get(), c.affine ? dW.get() : nullptr,
                                      c.N, c.C);
        check_close(dDx.to_host(), dx, 1e-5, 1e-4, "layernorm backward dx");
        if (c.affine) {
            check_close(dDw.to_host(), dw, 1e-4, 1e-4, "layernorm backward dweight");
            check_close(dDb.to_host(), db, 1e-4, 1e-4, "layernorm backward dbias");
        }
        // In place forward (out == x).
        cuda::layernorm_forward_cuda(dX.get(), nullptr, nullptr, dX.get(), c.affine ? dW.get() : nullptr,
                                     c.affine ? dB.get() : nullptr, 1e-5f, c.N, c.C);
        check_close(dX.to_host(), out, 1e-5 + mean_ulps, 1e-4, "layernorm forward in place");
    }
}
