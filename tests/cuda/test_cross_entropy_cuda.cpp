// Cross entropy (label smoothing, ignore_index padding) forward, backward and the two in one pass against the CPU's
// cross_entropy_forward / cross_entropy_backward. Tolerances: probs 1e-6 absolute + 1e-5 relative; per-row loss
// 1e-5 absolute + 1e-5 relative; the total 1e-5 relative; dlogits 1e-7 absolute + 1e-5 relative (they are ~1/count).
#include "cuda/cross_entropy_cuda.h"
#include "cuda_test_util.h"
#include "train/loss.h"

#include <cmath>

using namespace attend;
using namespace attend::cuda_test;

TEST_CASE("cuda: cross_entropy_forward_cuda, _backward_cuda and _fused_cuda match the CPU") {
    ATTEND_REQUIRE_GPU();
    const int pad = 0;
    for (float smoothing : {0.0f, 0.1f}) {
        for (auto [N, V] : {std::pair{1, 3}, std::pair{50, 1000}, std::pair{300, 10007}}) {
            CAPTURE(smoothing);
            CAPTURE(N);
            CAPTURE(V);
            const auto logits = random_vector(size_t(N) * V, 70, -8.0f, 8.0f);
            auto targets = random_ints(N, 71, 0, V - 1);
            if (N > 4) targets[2] = targets[4] = pad;  // padding rows
            const auto dz0 = random_vector(logits.size(), 72);
            std::vector<float> losses(N), probs(logits.size()), dz = dz0;
            const double total = cross_entropy_forward(losses.data(), probs.data(), logits.data(), targets.data(), pad,
                                                       smoothing, N, V);
            const int count = cross_entropy_count(targets.data(), pad, N);
            const float dloss = count ? 1.0f / count : 0.0f;
            cross_entropy_backward(dz.data(), nullptr, dloss, probs.data(), targets.data(), pad, smoothing, N, V);

            auto dLogits = to_device(logits);
            auto dTargets = to_device(targets);
            DeviceBuffer<float> dLosses(N), dProbs(logits.size());
            DeviceBuffer<double> dTotal(1);
            cuda::cross_entropy_forward_cuda(dLosses.get(), dProbs.get(), dTotal.get(), dLogits.get(), dTargets.get(),
                                             pad, smoothing, N, V);
            check_close(dProbs.to_host(), probs, 1e-6, 1e-5, "cross entropy probs");
            check_close(dLosses.to_host(), losses, 1e-5, 1e-5, "cross entropy row losses");
            const double gpu_total = dTotal.to_host()[0];
            CHECK(std::fabs(gpu_total - total) <= 1e-5 * std::fabs(total) + 1e-6);

            auto dDz = to_device(dz0);
            dProbs.upload(probs);  // the backward from the CPU's probs: only the backward is compared
            cuda::cross_entropy_backward_cuda(dDz.get(), nullptr, dloss, dProbs.get(), dTargets.get(), pad, smoothing,
                                              N, V);
            check_close(dDz.to_host(), dz, 1e-7, 1e-5, "cross entropy dlogits");

            // Per-row upstream gradients (dlosses).
            const auto g = random_vector(N, 73);
            dz = dz0;
            cross_entropy_backward(dz.data(), g.data(), 0.0f, probs.data(), targets.data(), pad, smoothing, N, V);
            dDz.upload(dz0);
            auto dG = to_device(g);
            cuda::cross_entropy_backward_cuda(dDz.get(), dG.get(), 0.0f, dProbs.get(), dTargets.get(), pad, smoothing,
                                              N, V);
            check_close(dDz.to_host(), dz, 1e-6, 1e-5, "cross entropy dlogits with dlosses");

            // Both in one pass, the gradient written over the logits (padding rows: zeros).
            std::vector<float> fresh(logits.size(), 0.0f);
            cross_entropy_backward(fresh.data(), nullptr, dloss, probs.data(), targets.data(), pad, smoothing, N, V);
            dLogits.upload(logits);
            cuda::cross_entropy_fused_cuda(dLosses.get(), dTotal.get(), dLogits.get(), dTargets.get(), pad, smoothing,
                                           dloss, N, V);
            check_close(dLosses.to_host(), losses, 1e-5, 1e-5, "fused cross entropy row losses");
            CHECK(std::fabs(dTotal.to_host()[0] - total) <= 1e-5 * std::fabs(total) + 1e-6);
            check_close(dLogits.to_host(), fresh, 1e-7, 1e-5, "fused cross entropy dlogits (in place)");
        }
    }
}

TEST_CASE("cuda: cross_entropy_forward_cuda gives NaN for a target outside [0, V) (the CPU throws)") {
    ATTEND_REQUIRE_GPU();
    const int N = 2, V = 5;
    const auto logits = random_vector(N * V, 74);
    auto dLogits = to_device(logits);
    auto dTargets = to_device(std::vector<int>{1, 7});
    DeviceBuffer<float> dLosses(N), dProbs(N * V);
    cuda::cross_entropy_forward_cuda(dLosses.get(), dProbs.get(), nullptr, dLogits.get(), dTargets.get(), -100, 0.0f,
                                     N, V);
    const auto l = dLosses.to_host();
    CHECK(std::isfinite(l[0]));
    CHECK(std::isnan(l[1]));
}
