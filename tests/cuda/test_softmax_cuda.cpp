// softmax / log-softmax / masked softmax forward and their backward against the CPU kernels. Tolerance:
// 1e-6 absolute + 1e-5 relative (expf vs xsimd exp, block vs SIMD summation order). Fully masked rows must be
// zeros (softmax) or -inf (log-softmax) on both sides: the comparison treats equal infinities as equal and
// fails on NaN unless both are NaN.
#include "cuda/softmax_cuda.h"
#include "cuda_test_util.h"
#include "kernels/masked_softmax.h"
#include "kernels/softmax.h"
#include "mask_cases.h"
#include "train/softmax_backward.h"

using namespace attend;
using namespace attend::cuda_test;

TEST_CASE("cuda: softmax / log_softmax forward and backward match the CPU, including all -inf rows") {
    ATTEND_REQUIRE_GPU();
    for (int C : {1, 5, 32, 129, 4000}) {
        CAPTURE(C);
        const int N = 37;
        auto x = random_vector(size_t(N) * C, 60, -20.0f, 20.0f);
        for (int c = 0; c < C; ++c) x[size_t(2) * C + c] = -INFINITY;  // row 2 fully masked
        x[size_t(3) * C] = 1e4f;                                        // a huge logit
        const auto dout = random_vector(x.size(), 61), dx0 = random_vector(x.size(), 62);
        std::vector<float> sm(x.size()), lsm(x.size()), dx_sm = dx0, dx_lsm = dx0;
        softmax_forward(sm.data(), x.data(), N, C);
        log_softmax_forward(lsm.data(), x.data(), N, C);
        softmax_backward(dx_sm.data(), dout.data(), sm.data(), N, C);
        log_softmax_backward(dx_lsm.data(), dout.data(), lsm.data(), N, C);

        auto dX = to_device(x), dDout = to_device(dout);
        DeviceBuffer<float> dSm(x.size()), dLsm(x.size());
        cuda::softmax_forward_cuda(dSm.get(), dX.get(), N, C);
        cuda::log_softmax_forward_cuda(dLsm.get(), dX.get(), N, C);
        check_close(dSm.to_host(), sm, 1e-6, 1e-5, "softmax forward");
        check_close(dLsm.to_host(), lsm, 1e-5, 1e-5, "log_softmax forward");
        // Backward from the CPU's outputs so that only the backward is compared.
        dSm.upload(sm);
        dLsm.upload(lsm);
        auto dDx = to_device(dx0);
        cuda::softmax_backward_cuda(dDx.get(), dDout.get(), dSm.get(), N, C);
        check_close(dDx.to_host(), dx_sm, 1e-6, 1e-5, "softmax backward");
        dDx.upload(dx0);
        cuda::log_softmax_backward_cuda(dDx.get(), dDout.get(), dLsm.get(), N, C);
        check_close(dDx.to_host(), dx_lsm, 1e-5, 1e-5, "log_softmax backward");
        // In place.
        cuda::softmax_forward_cuda(dX.get(), dX.get(), N, C);
        check_close(dX.to_host(), sm, 1e-6, 1e-5, "softmax forward in place");
    }
}

TEST_CASE("cuda: masked_softmax_forward_cuda matches the CPU for every mask kind") {
    ATTEND_REQUIRE_GPU();
    const int B = 3, H = 2;
    for (auto [Tq, Tk] : {std::pair{5, 7}, std::pair{40, 33}, std::pair{1, 70}}) {
        for (int which = 0; which < mask_case_count(); ++which) {
            auto hm = make_mask_case(which, B, H, Tq, Tk, 100 + which);
            CAPTURE(hm->name);
            CAPTURE(Tq);
            CAPTURE(Tk);
            const auto x = random_vector(size_t(B) * H * Tq * Tk, 63, -5.0f, 5.0f);
            std::vector<float> out(x.size());
            masked_softmax_forward(out.data(), x.data(), hm->mask, B, H, Tq, Tk);
            DeviceMask dm(hm->mask, B, H, Tq, Tk);
            auto dX = to_device(x);
            DeviceBuffer<float> dOut(x.size());
            cuda::masked_softmax_forward_cuda(dOut.get(), dX.get(), dm.mask, B, H, Tq, Tk);
            check_close(dOut.to_host(), out, 1e-6, 1e-5, "masked softmax (" + hm->name + ")");
        }
    }
}
