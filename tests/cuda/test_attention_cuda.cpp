// Fused masked attention forward and backward against the CPU's attention_forward / attention_backward, for every
// mask kind (tests/cuda/mask_cases.h), sizes that are and are not multiples of the 32-wide tiles, head dims 8..128,
// a decoding step (Tq = 1), and attention dropout.
// Tolerances: forward out/probs 1e-5 absolute + 1e-4 relative, row_logsumexp 1e-5 + 1e-5; backward dq/dk/dv
// 3e-5 absolute + 3e-4 relative (sums over up to 130 keys/queries in another order; inputs in [-1, 1]).
#include "cuda/attention_cuda.h"
#include "cuda_test_util.h"
#include "error.h"
#include "kernels/attention.h"
#include "mask_cases.h"
#include "train/attention_backward.h"
#include "train/dropout.h"

using namespace attend;
using namespace attend::cuda_test;

namespace {

struct Sizes { int B, H, Tq, Tk, D; };
const Sizes kSizes[] = {{2, 2, 5, 7, 8}, {2, 3, 33, 65, 64}, {1, 2, 70, 40, 128}, {2, 1, 1, 100, 48},
                        {1, 1, 130, 130, 100}, {3, 2, 32, 32, 32}};

// One forward + backward comparison. dropout may be null.
void compare_attention(const Sizes& s, const HostMask& hm, const Dropout* dropout, uint32_t seed) {
    const int B = s.B, H = s.H, Tq = s.Tq, Tk = s.Tk, D = s.D;
    const size_t nq = size_t(B) * H * Tq * D, nk = size_t(B) * H * Tk * D, np = size_t(B) * H * Tq * Tk;
    const auto q = random_vector(nq, seed), k = random_vector(nk, seed + 1), v = random_vector(nk, seed + 2);
    const auto dout = random_vector(nq, seed + 3);
    const auto dq0 = random_vector(nq, seed + 4), dk0 = random_vector(nk, seed + 5), dv0 = random_vector(nk, seed + 6);

    // CPU forward. With dropout the CPU (like multi_head_attention_forward) forms the weights, drops them, and
    // multiplies by V; the fused GPU kernel does it inside.
    std::vector<float> out(nq), probs(np), lse(size_t(B) * H * Tq);
    attention_forward(out.data(), probs.data(), q.data(), k.data(), v.data(), hm.mask, B, H, Tq, Tk, D, 0.0f,
                      lse.data());
    if (dropout && dropout->active()) {
        std::vector<float> dropped(np);
        dropout_forward(dropped.data(), probs.data(), *dropout, int64_t(np));
        for (int bh = 0; bh < B * H; ++bh)
            for (int i = 0; i < Tq; ++i)
                for (int d = 0; d < D; ++d) {
                    double acc = 0;
                    for (int j = 0; j < Tk; ++j)
                        acc += double(dropped[(size_t(bh) * Tq + i) * Tk + j]) * v[(size_t(bh) * Tk + j) * D + d];
                    out[(size_t(bh) * Tq + i) * D + d] = float(acc);
                }
    }
    std::vector<float> dq = dq0, dk = dk0, dv = dv0;
    attention_backward(dq.data(), dk.data(), dv.data(), dout.data(), q.data(), k.data(), v.data(), out.data(),
                       lse.data(), hm.mask, B, H, Tq, Tk, D, 0.0f, dropout);

    DeviceMask dm(hm.mask, B, H, Tq, Tk);
    auto dQ = to_device(q), dK = to_device(k), dV = to_device(v), dDout = to_device(dout);
    DeviceBuffer<float> dOut(nq), dProbs(np), dLse(lse.size());
    cuda::attention_forward_cuda(dOut.get(), dProbs.get(), dQ.get(), dK.get(), dV.get(), dm.mask, B, H, Tq, Tk, D,
                                 0.0f, dLse.get(), dropout);
    check_close(dOut.to_host(), out, 1e-5, 1e-4, "attention forward out (" + hm.name + ")");
    check_close(dProbs.to_host(), probs, 1e-5, 1e-4, "attention forward probs (" + hm.name + ")");
    check_close(dLse.to_host(), lse, 1e-5, 1e-5, "attention forward row_logsumexp (" + hm.name + ")");

    // Without probs (the training path) the output is the same.
    DeviceBuffer<float> dOut2(nq);
    cuda::attention_forward_cuda(dOut2.get(), nullptr, dQ.get(), dK.get(), dV.get(), dm.mask, B, H, Tq, Tk, D, 0.0f,
                                 nullptr, dropout);
    check_close(dOut2.to_host(), out, 1e-5, 1e-4, "attention forward out, no probs (" + hm.name + ")");

    // Backward from the CPU's out and logsumexp, so that only the backward is compared.
    auto dOutCpu = to_device(out), dLseCpu = to_device(lse);
    auto dDq = to_device(dq0), dDk = to_device(dk0), dDv = to_device(dv0);
    cuda::attention_backward_cuda(dDq.get(), dDk.get(), dDv.get(), nullptr, dDout.get(), dQ.get(), dK.get(), dV.get(),
                                  dOutCpu.get(), dLseCpu.get(), dm.mask, B, H, Tq, Tk, D, 0.0f, dropout);
    check_close(dDq.to_host(), dq, 3e-5, 3e-4, "attention backward dq (" + hm.name + ")");
    check_close(dDk.to_host(), dk, 3e-5, 3e-4, "attention backward dk (" + hm.name + ")");
    check_close(dDv.to_host(), dv, 3e-5, 3e-4, "attention backward dv (" + hm.name + ")");
}

}  // namespace

TEST_CASE("cuda: attention_forward_cuda / attention_backward_cuda match the CPU for every mask kind") {
    ATTEND_REQUIRE_GPU();
    uint32_t seed = 1000;
    for (const Sizes& s : kSizes) {
        for (int which = 0; which < mask_case_count(); ++which) {
            auto hm = make_mask_case(which, s.B, s.H, s.Tq, s.Tk, seed);
            CAPTURE(hm->name);
            CAPTURE(s.B);
            CAPTURE(s.H);
            CAPTURE(s.Tq);
            CAPTURE(s.Tk);
            CAPTURE(s.D);
            compare_attention(s, *hm, nullptr, seed);
            seed += 10;
        }
    }
}

TEST_CASE("cuda: attention with dropout on the weights matches the CPU (same counters)") {
    ATTEND_REQUIRE_GPU();
    const Dropout drop{0.2f, 99, 12345};
    uint32_t seed = 5000;
    for (const Sizes& s : kSizes) {
        for (int which : {0, 4, 8}) {
            auto hm = make_mask_case(which, s.B, s.H, s.Tq, s.Tk, seed);
            CAPTURE(hm->name);
            CAPTURE(s.Tq);
            CAPTURE(s.Tk);
            CAPTURE(s.D);
            compare_attention(s, *hm, &drop, seed);
            seed += 10;
        }
    }
}

TEST_CASE("cuda: attention_forward_cuda refuses a head dimension above 128 with a clear message") {
    // The check runs before any CUDA call, so this runs without a GPU too.
    const AttnMask none;
    try {
        cuda::attention_forward_cuda(nullptr, nullptr, nullptr, nullptr, nullptr, none, 1, 1, 1, 1, 256);
        FAIL("no error for D = 256");
    } catch (const Error& e) {
        CHECK(std::string(e.what()).find("head dimension D = 256") != std::string::npos);
    }
    CHECK_THROWS_AS(cuda::attention_backward_cuda(nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                                  nullptr, nullptr, nullptr, none, 1, 1, 1, 1, 0),
                    Error);
}
