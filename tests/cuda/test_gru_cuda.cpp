// GRU cell forward/backward against core/model/gru + core/train/gru_backward, with and without a previous state,
// and whole sequences in both directions. Tolerance 1e-5 absolute + 1e-4 relative (cuBLAS vs Eigen products,
// expf/tanhf vs xsimd); the weight gradients, summed over T*B rows, 1e-4 absolute + 1e-4 relative.
#include "cuda/gru_cuda.h"
#include "cuda_test_util.h"
#include "model/gru.h"
#include "train/gru_backward.h"

using namespace attend;
using namespace attend::cuda_test;

TEST_CASE("cuda: gru_cell_forward_cuda / gru_cell_backward_cuda match the CPU") {
    ATTEND_REQUIRE_GPU();
    for (bool with_prev : {false, true}) {
        for (auto [B, H] : {std::pair{1, 3}, std::pair{7, 64}, std::pair{33, 200}}) {
            CAPTURE(with_prev);
            CAPTURE(B);
            CAPTURE(H);
            const size_t BH = size_t(B) * H, B3H = BH * 3;
            const auto gates_in = random_vector(B3H, 100), h_prev = random_vector(BH, 101);
            const auto w_hh = random_vector(size_t(3 * H) * H, 102, -0.3f, 0.3f), b_hh = random_vector(3 * H, 103);
            const auto dh = random_vector(BH, 104);
            const auto dgates0 = random_vector(B3H, 105), dprev0 = random_vector(BH, 106);
            const auto dw0 = random_vector(w_hh.size(), 107), db0 = random_vector(3 * H, 108);
            const float* hp = with_prev ? h_prev.data() : nullptr;

            std::vector<float> h(BH), gates = gates_in, hh_n(BH);
            gru_cell_forward(h.data(), gates.data(), hh_n.data(), hp, w_hh.data(), b_hh.data(), B, H);
            std::vector<float> dgates = dgates0, dprev = dprev0, dw = dw0, db = db0;
            gru_cell_backward(dgates.data(), dprev.data(), dw.data(), db.data(), dh.data(), gates.data(), hh_n.data(),
                              hp, w_hh.data(), B, H);

            auto dGates = to_device(gates_in), dHprev = to_device(h_prev), dW = to_device(w_hh), dB = to_device(b_hh);
            DeviceBuffer<float> dH(BH), dHhn(BH), dHw(B3H);
            const float* dhp = with_prev ? dHprev.get() : nullptr;
            cuda::gru_cell_forward_cuda(dH.get(), dGates.get(), dHhn.get(), dHw.get(), dhp, dW.get(), dB.get(), B, H);
            check_close(dH.to_host(), h, 1e-5, 1e-4, "gru h");
            check_close(dGates.to_host(), gates, 1e-5, 1e-4, "gru gates (r, z, n)");
            check_close(dHhn.to_host(), hh_n, 1e-5, 1e-4, "gru hh_n");

            // Backward from the CPU's saved activations.
            dGates.upload(gates);
            dHhn.upload(hh_n);
            auto dDh = to_device(dh), dDg = to_device(dgates0), dDp = to_device(dprev0), dDw = to_device(dw0),
                 dDb = to_device(db0);
            cuda::gru_cell_backward_cuda(dDg.get(), dDp.get(), dDw.get(), dDb.get(), dHw.get(), dDh.get(), dGates.get(),
                                         dHhn.get(), dhp, dW.get(), B, H);
            check_close(dDg.to_host(), dgates, 1e-5, 1e-4, "gru dgates");
            check_close(dDp.to_host(), dprev, 1e-5, 1e-4, "gru dh_prev");
            check_close(dDw.to_host(), dw, 1e-5, 1e-4, "gru dw_hh");
            check_close(dDb.to_host(), db, 1e-5, 1e-4, "gru db_hh");
        }
    }
}

TEST_CASE("cuda: gru_forward_cuda / gru_backward_cuda (whole sequences, both directions) match the CPU") {
    ATTEND_REQUIRE_GPU();
    for (bool reverse : {false, true}) {
        for (bool with_h0 : {false, true}) {
            CAPTURE(reverse);
            CAPTURE(with_h0);
            const int T = 9, B = 5, I = 24, H = 40;
            const size_t BH = size_t(B) * H;
            const auto x = random_vector(size_t(T) * B * I, 110), h0 = random_vector(BH, 111);
            const auto w_ih = random_vector(size_t(3 * H) * I, 112, -0.3f, 0.3f), b_ih = random_vector(3 * H, 113);
            const auto w_hh = random_vector(size_t(3 * H) * H, 114, -0.3f, 0.3f), b_hh = random_vector(3 * H, 115);
            const auto dout = random_vector(size_t(T) * BH, 116), dh_n = random_vector(BH, 117);
            const float* hp = with_h0 ? h0.data() : nullptr;
            std::vector<float> out(size_t(T) * BH), gates(size_t(T) * B * 3 * H), hh_n(size_t(T) * BH);
            gru_forward(out.data(), gates.data(), hh_n.data(), x.data(), hp, w_ih.data(), b_ih.data(), w_hh.data(),
                        b_hh.data(), T, B, I, H, reverse);
            std::vector<float> dx(x.size(), 0.0f), dh0(BH, 0.0f), dwih(w_ih.size(), 0.0f), dbih(3 * H, 0.0f),
                dwhh(w_hh.size(), 0.0f), dbhh(3 * H, 0.0f);
            gru_backward(dx.data(), with_h0 ? dh0.data() : nullptr, dwih.data(), dbih.data(), dwhh.data(), dbhh.data(),
                         dout.data(), dh_n.data(), x.data(), hp, out.data(), gates.data(), hh_n.data(), w_ih.data(),
                         w_hh.data(), T, B, I, H, reverse);

            auto dX = to_device(x), dH0 = to_device(h0), dWih = to_device(w_ih), dBih = to_device(b_ih),
                 dWhh = to_device(w_hh), dBhh = to_device(b_hh), dDout = to_device(dout), dDhn = to_device(dh_n);
            DeviceBuffer<float> dOut(out.size()), dGates(gates.size()), dHhn(hh_n.size());
            const float* dhp = with_h0 ? dH0.get() : nullptr;
            cuda::gru_forward_cuda(dOut.get(), dGates.get(), dHhn.get(), nullptr, dX.get(), dhp, dWih.get(), dBih.get(),
                                   dWhh.get(), dBhh.get(), T, B, I, H, reverse);
            check_close(dOut.to_host(), out, 1e-5, 1e-4, "gru sequence out");
            check_close(dGates.to_host(), gates, 1e-5, 1e-4, "gru sequence gates");
            // The backward from the CPU's activations.
            dOut.upload(out);
            dGates.upload(gates);
            dHhn.upload(hh_n);
            auto gDx = to_device(std::vector<float>(x.size(), 0.0f)), gDh0 = to_device(std::vector<float>(BH, 0.0f));
            auto gDwih = to_device(std::vector<float>(w_ih.size(), 0.0f)), gDbih = to_device(std::vector<float>(3 * H));
            auto gDwhh = to_device(std::vector<float>(w_hh.size(), 0.0f)), gDbhh = to_device(std::vector<float>(3 * H));
            cuda::gru_backward_cuda(gDx.get(), with_h0 ? gDh0.get() : nullptr, gDwih.get(), gDbih.get(), gDwhh.get(),
                                    gDbhh.get(), nullptr, dDout.get(), dDhn.get(), dX.get(), dhp, dOut.get(),
                                    dGates.get(), dHhn.get(), dWih.get(), dWhh.get(), T, B, I, H, reverse);
            check_close(gDx.to_host(), dx, 1e-5, 1e-4, "gru sequence dx");
            if (with_h0) check_close(gDh0.to_host(), dh0, 1e-5, 1e-4, "gru sequence dh0");
            check_close(gDwih.to_host(), dwih, 1e-4, 1e-4, "gru sequence dw_ih");
            check_close(gDbih.to_host(), dbih, 1e-4, 1e-4, "gru sequence db_ih");
            check_close(gDwhh.to_host(), dwhh, 1e-4, 1e-4, "gru sequence dw_hh");
            check_close(gDbhh.to_host(), dbhh, 1e-4, 1e-4, "gru sequence db_hh");
        }
    }
}
