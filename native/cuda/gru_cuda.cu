#include "cuda/gru_cuda.h"

#include "cuda/activations_cuda.h"
#include "cuda/cublas_linear.h"
#include "cuda/cuda_check.h"
#include "cuda/cuda_common.cuh"
#include "cuda/device_memory.h"

#include <utility>

namespace attend::cuda {

namespace {

__device__ __forceinline__ float sigmoidf_(float x) { return 1.0f / (1.0f + expf(-x)); }

// hw [B,3H] = b_hh broadcast (h_prev == null) — the CPU's "hw = b_hh" branch.
__global__ void gru_bias_rows_kernel(float* hw, const float* b_hh, int B, int H3) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < B * H3) hw[i] = b_hh ? b_hh[i % H3] : 0.0f;
}

// One thread per (b, j), j < H.
__global__ void gru_cell_forward_kernel(float* h, float* gates, float* hh_n, const float* hw, const float* h_prev,
                                        int B, int H) {
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= B * H) return;
    const int b = idx / H, j = idx % H;
    float* g = gates + (size_t)b * 3 * H;
    const float* a = hw + (size_t)b * 3 * H;
    const float r = sigmoidf_(g[j] + a[j]);
    const float z = sigmoidf_(g[H + j] + a[H + j]);
    const float hh = a[2 * H + j];
    const float cand = tanhf(r * hh + g[2 * H + j]);
    const float prev = h_prev ? h_prev[idx] : 0.0f;
    h[idx] = z * (prev - cand) + cand;  // (1 - z) n + z h
    g[j] = r;
    g[H + j] = z;
    g[2 * H + j] = cand;
    hh_n[idx] = hh;
}

__global__ void gru_cell_backward_kernel(float* dgates, float* dh_prev, float* dhw, const float* dh,
                                         const float* gates, const float* hh_n, const float* h_prev, int B, int H) {
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= B * H) return;
    const int b = idx / H, j = idx % H;
    const float* g = gates + (size_t)b * 3 * H;
    float* dg = dgates + (size_t)b * 3 * H;
    float* da = dhw + (size_t)b * 3 * H;
    const float r = g[j], z = g[H + j], cand = g[2 * H + j];
    const float prev = h_prev ? h_prev[idx] : 0.0f;
    const float d = dh[idx];
    const float dn_pre = d * (1.0f - z) * (1.0f - cand * cand);
    const float dr_pre = dn_pre * hh_n[idx] * r * (1.0f - r);
    const float dz_pre = d * (prev - cand) * z * (1.0f - z);
    dg[j] += dr_pre;
    dg[H + j] += dz_pre;
    dg[2 * H + j] += dn_pre;
    da[j] = dr_pre;
    da[H + j] = dz_pre;
    da[2 * H + j] = dn_pre * r;
    if (dh_prev) dh_prev[idx] += d * z;
}

}  // namespace

void gru_cell_forward_cuda(float* h, float* gates, float* hh_n, float* hw, const float* h_prev, const float* w_hh,
                           const float* b_hh, int B, int H) {
    if (B <= 0 || H <= 0) return;
    if (h_prev) {
        linear_forward_cuda(hw, h_prev, w_hh, b_hh, B, H, 3 * H);
    } else {
        gru_bias_rows_kernel<<<ceil_div(B * 3 * H, 256), 256>>>(hw, b_hh, B, 3 * H);
        CUDA_CHECK_LAUNCH("gru_bias_rows_kernel");
    }
    gru_cell_forward_kernel<<<ceil_div(B * H, 256), 256>>>(h, gates, hh_n, hw, h_prev, B, H);
    CUDA_CHECK_LAUNCH("gru_cell_forward_kernel");
}

void gru_cell_backward_cuda(float* dgates, float* dh_prev, float* dw_hh, float* db_hh, float* hw,
                            const float* dh, const float* gates, const float* hh_n, const float* h_prev,
                            const float* w_hh, int B, int H) {
    if (B <= 0 || H <= 0) return;
    gru_cell_backward_kernel<<<ceil_div(B * H, 256), 256>>>(dgates, dh_prev, hw, dh, gates, hh_n, h_prev, B, H);
    CUDA_CHECK_LAUNCH("gru_cell_backward_kernel");
    // h_prev = null stands for zeros: dW_hh gets nothing from this step, but dh_prev still gets hw W_hh.
    linear_backward_cuda(dh_prev, h_prev ? dw_hh : nullptr, db_hh, hw, h_prev, w_hh, B, H, 3 * H);
}

size_t gru_forward_scratch(int B, int H) { return size_t(B) * 3 * H; }

void gru_forward_cuda(float* out, float* gates, float* hh_n, float* scratch, const float* x, const float* h0,
                      const float* w_ih, const float* b_ih, const float* w_hh, const float* b_hh, int T, int B, int I,
                      int H, bool reverse) {
    if (T <= 0 || B <= 0 || H <= 0) return;
    DeviceBuffer<float> own;
    if (!scratch) {
        own = DeviceBuffer<float>(gru_forward_scratch(B, H));
        scratch = own.get();
    }
    // The input projection of every step at once, as the CPU.
    linear_forward_cuda(gates, x, w_ih, b_ih, T * B, I, 3 * H);
    const float* h_prev = h0;
    for (int s = 0; s < T; ++s) {
        const int t = reverse ? T - 1 - s : s;
        float* h = out + size_t(t) * B * H;
        gru_cell_forward_cuda(h, gates + size_t(t) * B * 3 * H, hh_n + size_t(t) * B * H, scratch, h_prev, w_hh, b_hh,
                              B, H);
        h_prev = h;
    }
}

size_t gru_backward_scratch(int T, int B, int H) {
    return size_t(T) * B * 3 * H + 2 * size_t(B) * H + size_t(B) * 3 * H;  // dxw, dh, dh_next, hw
}

void gru_backward_cuda(float* dx, float* dh0, float* dw_ih, float* db_ih, float* dw_hh, float* db_hh, float* scratch,
                       const float* dout, const float* dh_n, const float* x, const float* h0, const float* out,
                       const float* gates, const float* hh_n, const float* w_ih, const float* w_hh, int T, int B,
                       int I, int H, bool reverse) {
    if (T <= 0 || B <= 0 || H <= 0) return;
    DeviceBuffer<float> own;
    if (!scratch) {
        own = DeviceBuffer<float>(gru_backward_scratch(T, B, H));
        scratch = own.get();
    }
    const size_t BH = size_t(B) * H;
    float* dxw = scratch;                          // [T,B,3H]
    float* dh = dxw + size_t(T) * B * 3 * H;       // [B,H]
    float* dh_next = dh + BH;                      // [B,H]
    float* hw = dh_next + BH;                      // [B,3H]
    zero_device(dxw, size_t(T) * B * 3 * H);
    if (dh_n)
        copy_device(dh, dh_n, BH);
    else
        zero_device(dh, BH);
    for (int s = T - 1; s >= 0; --s) {
        const int t = reverse ? T - 1 - s : s;
        if (dout) residual_forward_cuda(dh, dh, dout + size_t(t) * BH, int(BH));
        const int t_prev = reverse ? t + 1 : t - 1;
        const float* h_prev = s == 0 ? h0 : out + size_t(t_prev) * BH;
        float* dprev = s == 0 ? dh0 : dh_next;
        if (s > 0) zero_device(dh_next, BH);
        gru_cell_backward_cuda(dxw + size_t(t) * B * 3 * H, dprev, dw_hh, db_hh, hw, dh, gates + size_t(t) * B * 3 * H,
                               hh_n + size_t(t) * BH, h_prev, w_hh, B, H);
        if (s > 0) std::swap(dh, dh_next);
    }
    linear_backward_cuda(dx, dw_ih, db_ih, dxw, x, w_ih, T * B, I, 3 * H);
}

}  // namespace attend::cuda
