// Adam / AdamW steps, the global gradient norm and clipping against core/train/optimizer. Tolerances: Adam
// parameters and moments 1e-6 absolute + 1e-5 relative after 5 steps (FMA contraction differs); norm 1e-9 relative
// (both accumulate in double); clipped gradients 1e-6 relative.
#include "cuda/optimizer_cuda.h"
#include "cuda_test_util.h"
#include "train/optimizer.h"

#include <cmath>

using namespace attend;
using namespace attend::cuda_test;

TEST_CASE("cuda: adam_update_cuda matches adam_update (Adam with L2 and AdamW), over 5 steps") {
    ATTEND_REQUIRE_GPU();
    const size_t n = 100001;
    for (bool decoupled : {false, true}) {
        CAPTURE(decoupled);
        AdamConfig c;
        c.lr = 3e-3f;
        c.weight_decay = 0.01f;
        c.decoupled = decoupled;
        auto p = random_vector(n, 80);
        std::vector<float> m(n, 0.0f), v(n, 0.0f);
        auto dP = to_device(p), dM = to_device(m), dV = to_device(v);
        for (int t = 1; t <= 5; ++t) {
            const auto g = random_vector(n, 81 + t);
            adam_update(p.data(), m.data(), v.data(), g.data(), n, t, c.lr, c);
            auto dG = to_device(g);
            cuda::adam_update_cuda(dP.get(), dM.get(), dV.get(), dG.get(), n, t, c.lr, c);
        }
        check_close(dP.to_host(), p, 1e-6, 1e-5, "adam params");
        check_close(dM.to_host(), m, 1e-6, 1e-5, "adam m");
        check_close(dV.to_host(), v, 1e-7, 1e-5, "adam v");
    }
}

TEST_CASE("cuda: global_grad_norm_cuda and clip_grad_norm_cuda match the CPU") {
    ATTEND_REQUIRE_GPU();
    for (size_t n : {size_t(1), size_t(1000), size_t(3000017)}) {
        CAPTURE(n);
        const auto g = random_vector(n, 90);
        const double norm = global_grad_norm(g.data(), n);
        auto dG = to_device(g);
        DeviceBuffer<double> dNorm(1);
        cuda::global_grad_norm_cuda(dNorm.get(), dG.get(), n);
        const double got = dNorm.to_host()[0];
        CHECK(std::fabs(got - norm) <= 1e-9 * norm);

        for (double theta : {norm * 2, norm / 3}) {  // no clipping, then clipping
            std::vector<float> clipped = g;
            const double before = clip_grad_norm(clipped.data(), n, theta);
            dG.upload(g);
            cuda::clip_grad_norm_cuda(dNorm.get(), dG.get(), n, theta);
            CHECK(std::fabs(dNorm.to_host()[0] - before) <= 1e-9 * before);
            check_close(dG.to_host(), clipped, 0.0, 1e-6, "clipped gradients");
        }
    }
}
