#include "cuda/attention_cuda.h"

#include "cuda/attn_mask_cuda.cuh"
#include "cuda/cuda_check.h"
#include "cuda/cuda_common.cuh"
#include "cuda/device_memory.h"
#include "cuda/dropout_rng.cuh"
#include "error.h"

#include <cmath>
#include <string>
#include <type_traits>

namespace attend::cuda {

namespace {

constexpr int kTile = 32;  // keys (forward, dq) or queries (dk/dv) per shared-memory tile: one per lane
constexpr int kRows = 8;   // warps per block, each owning one query (forward, dq) or key (dk/dv) row

// Lane `lane` owns the head dimensions d = lane + 32 * t, t < DPL (dims per lane = ceil(D / 32)).
// Shared-memory tiles are [kTile][D + 1]: the +1 keeps "lane reads row lane" free of bank conflicts.

// ---------------------------------------------------------------------------------------------- forward
template <int DPL>
__global__ void __launch_bounds__(kRows * kWarp)
    attention_forward_kernel(float* out, float* probs, float* lse, const float* q, const float* k, const float* v,
                             AttnMask mask, DropoutDev drop, int H, int Tq, int Tk, int D, float scale) {
    extern __shared__ float smem[];
    const int ld = D + 1;
    float* Ks = smem;                  // [kTile][ld]
    float* Vs = Ks + kTile * ld;       // [kTile][ld]
    float* Qs = Vs + kTile * ld;       // [kRows][D], scaled
    __shared__ int row_limit[kRows];

    const int lane = threadIdx.x % kWarp, w = threadIdx.x / kWarp;
    const int bh = blockIdx.y, b = bh / H, h = bh % H;
    const int i = blockIdx.x * kRows + w;
    const bool row_ok = i < Tq;
    const float* K = k + (size_t)bh * Tk * D;
    const float* V = v + (size_t)bh * Tk * D;
    float* qs = Qs + w * D;
    const size_t row = (size_t)bh * Tq + i;  // valid only when row_ok

    for (int d = lane; d < D; d += kWarp) qs[d] = row_ok ? q[row * D + d] * scale : 0.0f;
    const int limit = row_ok ? (mask_is_empty(mask) ? Tk : mask_key_limit(mask, b, i, Tq, Tk)) : 0;
    if (lane == 0) row_limit[w] = limit;
    __syncthreads();
    int key_end = 0;  // keys beyond every row's limit are never loaded
    for (int r = 0; r < kRows; ++r) key_end = max(key_end, row_limit[r]);

    float m = -INFINITY, l = 0.0f;
    float acc[DPL];
#pragma unroll
    for (int t = 0; t < DPL; ++t) acc[t] = 0.0f;
    const float keep_scale = drop.scale();

    for (int j0 = 0; j0 < key_end; j0 += kTile) {
        const int nk = min(kTile, Tk - j0);
        __syncthreads();  // the previous tile is no longer read
        for (int e = threadIdx.x; e < nk * D; e += blockDim.x) {
            const int jj = e / D, d = e % D;
            Ks[jj * ld + d] = K[(size_t)(j0 + jj) * D + d];
            Vs[jj * ld + d] = V[(size_t)(j0 + jj) * D + d];
        }
        __syncthreads();
        if (!row_ok || j0 >= limit) continue;  // warp-uniform: this row sees no key of this tile
        const int j = j0 + lane;
        float s = -INFINITY;
        if (lane < nk) {
            float dot = 0.0f;
            for (int d = 0; d < D; ++d) dot += qs[d] * Ks[lane * ld + d];
            s = mask_score(dot, mask, b, h, i, j, limit, H, Tq, Tk);
        }
        if (probs && lane < nk) probs[row * Tk + j] = s;  // raw scores; normalised at the end by the same lane
        const float m_new = fmaxf(m, warp_max(s));
        if (m_new == -INFINITY) continue;  // only masked keys so far
        const float p = expf(s - m_new);   // 0 for masked keys
        const float alpha = expf(m - m_new);  // 0 while m was -inf
        l = l * alpha + warp_sum(p);
        m = m_new;
        float pv = p;
        if (drop.active()) pv = (lane < nk && drop.keep(row * Tk + j)) ? p * keep_scale : 0.0f;
#pragma unroll
        for (int t = 0; t < DPL; ++t) acc[t] *= alpha;
        for (int jj = 0; jj < nk; ++jj) {
            const float pj = __shfl_sync(0xffffffffu, pv, jj);
#pragma unroll
            for (int t = 0; t < DPL; ++t) {
                const int d = lane + t * kWarp;
                if (d < D) acc[t] += pj * Vs[jj * ld + d];
            }
        }
    }
    if (!row_ok) return;
    const bool seen = l > 0.0f;
    const float inv_l = seen ? 1.0f / l : 0.0f;
#pragma unroll
    for (int t = 0; t < DPL; ++t) {
        const int d = lane + t * kWarp;
        if (d < D) out[row * D + d] = acc[t] * inv_l;
    }
    if (lse && lane == 0) lse[row] = seen ? m + logf(l) : -INFINITY;
    if (probs) {
        // Lane `lane` wrote keys j0 + lane of every tile below min(limit, key_end); it rereads exactly those.
        for (int j = lane; j < Tk; j += kWarp) {
            float p = 0.0f;
            if (seen && j < limit) p = expf(probs[row * Tk + j] - m) * inv_l;
            probs[row * Tk + j] = p;
        }
    }
}

// ---------------------------------------------------------------------------------------------- backward: dq
// One warp per query row i. With dropout, a first pass over the keys computes delta_i = sum_j P_ij dP_ij M_ij;
// without, delta_i = dO_i . O_i. The second pass adds dq_i += scale * sum_j dS_ij k_j, dS = P (dP M - delta).
template <int DPL>
__global__ void __launch_bounds__(kRows * kWarp)
    attention_backward_dq_kernel(float* dq, float* delta_out, const float* dout, const float* q, const float* k,
                                 const float* v, const float* out, const float* lse, AttnMask mask, DropoutDev drop,
                                 int H, int Tq, int Tk, int D, float scale) {
    extern __shared__ float smem[];
    const int ld = D + 1;
    float* Ks = smem;                  // [kTile][ld]
    float* Vs = Ks + kTile * ld;       // [kTile][ld]
    float* Qs = Vs + kTile * ld;       // [kRows][D], scaled
    float* dOs = Qs + kRows * D;       // [kRows][D]
    __shared__ int row_limit[kRows];

    const int lane = threadIdx.x % kWarp, w = threadIdx.x / kWarp;
    const int bh = blockIdx.y, b = bh / H, h = bh % H;
    const int i = blockIdx.x * kRows + w;
    const size_t row = (size_t)bh * Tq + i;
    const float row_lse = i < Tq ? lse[row] : -INFINITY;
    const bool row_ok = i < Tq && row_lse != -INFINITY;  // a fully masked row gets no gradient
    const float* K = k + (size_t)bh * Tk * D;
    const float* V = v + (size_t)bh * Tk * D;
    float* qs = Qs + w * D;
    float* dos = dOs + w * D;
    for (int d = lane; d < D; d += kWarp) {
        qs[d] = row_ok ? q[row * D + d] * scale : 0.0f;
        dos[d] = row_ok ? dout[row * D + d] : 0.0f;
    }
    const int limit = row_ok ? (mask_is_empty(mask) ? Tk : mask_key_limit(mask, b, i, Tq, Tk)) : 0;
    if (lane == 0) row_limit[w] = limit;
    __syncthreads();
    int key_end = 0;
    for (int r = 0; r < kRows; ++r) key_end = max(key_end, row_limit[r]);
    const float keep_scale = drop.scale();

    float delta = 0.0f;
    if (!drop.active()) {
        if (row_ok)
            for (int d = lane; d < D; d += kWarp) delta += out[row * D + d] * dos[d];
        delta = warp_sum(delta);
    }
    float acc[DPL];
#pragma unroll
    for (int t = 0; t < DPL; ++t) acc[t] = 0.0f;

    for (int pass = drop.active() ? 0 : 1; pass < 2; ++pass) {
        for (int j0 = 0; j0 < key_end; j0 += kTile) {
            const int nk = min(kTile, Tk - j0);
            __syncthreads();
            for (int e = threadIdx.x; e < nk * D; e += blockDim.x) {
                const int jj = e / D, d = e % D;
                Ks[jj * ld + d] = K[(size_t)(j0 + jj) * D + d];
                Vs[jj * ld + d] = V[(size_t)(j0 + jj) * D + d];
            }
            __syncthreads();
            if (!row_ok || j0 >= limit) continue;
            const int j = j0 + lane;
            float p = 0.0f, dp = 0.0f;
            if (lane < nk) {
                float s = 0.0f;
                for (int d = 0; d < D; ++d) {
                    s += qs[d] * Ks[lane * ld + d];
                    dp += dos[d] * Vs[lane * ld + d];
                }
                s = mask_score(s, mask, b, h, i, j, limit, H, Tq, Tk);
                p = expf(s - row_lse);  // masked: exp(-inf) = 0
                if (drop.active()) dp *= drop.keep(row * Tk + j) ? keep_scale : 0.0f;
            }
            if (pass == 0) {
                delta += warp_sum(p * dp);  // lanes beyond nk add 0
                continue;
            }
            const float ds = p * (dp - delta);
            for (int jj = 0; jj < nk; ++jj) {
                const float dsj = __shfl_sync(0xffffffffu, ds, jj);
#pragma unroll
                for (int t = 0; t < DPL; ++t) {
                    const int d = lane + t * kWarp;
                    if (d < D) acc[t] += dsj * Ks[jj * ld + d];
                }
            }
        }
    }
    if (i >= Tq) return;
    if (lane == 0) delta_out[row] = row_ok ? delta : 0.0f;
    if (!row_ok) return;
#pragma unroll
    for (int t = 0; t < DPL; ++t) {
        const int d = lane + t * kWarp;
        if (d < D) dq[row * D + d] += scale * acc[t];
    }
}

// ---------------------------------------------------------------------------------------------- backward: dk, dv
// One warp per key row j, query tiles of 32 (lane = query): dv_j += sum_i P_ij M_ij dO_i,
// dk_j += sum_i dS_ij (scale q_i), dS_ij = P_ij (dP_ij M_ij - delta_i).
template <int DPL>
__global__ void __launch_bounds__(kRows * kWarp)
    attention_backward_dkdv_kernel(float* dk, float* dv, const float* dout, const float* q, const float* k,
                                   const float* v, const float* lse, const float* delta, AttnMask mask,
                                   DropoutDev drop, int H, int Tq, int Tk, int D, float scale) {
    extern __shared__ float smem[];
    const int ld = D + 1;
    float* Qs = smem;                  // [kTile][ld], scaled
    float* dOs = Qs + kTile * ld;      // [kTile][ld]
    float* ks = dOs + kTile * ld;      // [kRows][D]
    float* vs = ks + kRows * D;        // [kRows][D]
    __shared__ float lse_s[kTile], delta_s[kTile];

    const int lane = threadIdx.x % kWarp, w = threadIdx.x / kWarp;
    const int bh = blockIdx.y, b = bh / H, h = bh % H;
    const int j = blockIdx.x * kRows + w;
    const bool key_ok = j < Tk;
    const size_t key_row = (size_t)bh * Tk + j;
    for (int d = lane; d < D; d += kWarp) {
        ks[w * D + d] = key_ok ? k[key_row * D + d] : 0.0f;
        vs[w * D + d] = key_ok ? v[key_row * D + d] : 0.0f;
    }
    const float keep_scale = drop.scale();
    const bool has_mask = !mask_is_empty(mask);
    float acc_k[DPL], acc_v[DPL];
#pragma unroll
    for (int t = 0; t < DPL; ++t) acc_k[t] = acc_v[t] = 0.0f;

    for (int i0 = 0; i0 < Tq; i0 += kTile) {
        const int nq = min(kTile, Tq - i0);
        __syncthreads();
        for (int e = threadIdx.x; e < nq * D; e += blockDim.x) {
            const int ii = e / D, d = e % D;
            const size_t src = ((size_t)bh * Tq + i0 + ii) * D + d;
            Qs[ii * ld + d] = q[src] * scale;
            dOs[ii * ld + d] = dout[src];
        }
        for (int ii = threadIdx.x; ii < nq; ii += blockDim.x) {
            lse_s[ii] = lse[(size_t)bh * Tq + i0 + ii];
            delta_s[ii] = delta[(size_t)bh * Tq + i0 + ii];
        }
        __syncthreads();
        if (!key_ok) continue;
        const int i = i0 + lane;
        float pm = 0.0f, ds = 0.0f;  // P M and dS for query i (0 for lanes beyond the tile or masked)
        if (lane < nq && lse_s[lane] != -INFINITY) {
            float s = 0.0f, dp = 0.0f;
            for (int d = 0; d < D; ++d) {
                s += Qs[lane * ld + d] * ks[w * D + d];
                dp += dOs[lane * ld + d] * vs[w * D + d];
            }
            if (has_mask) s = mask_score(s, mask, b, h, i, j, mask_key_limit(mask, b, i, Tq, Tk), H, Tq, Tk);
            const float p = expf(s - lse_s[lane]);
            const float mk = drop.active() ? (drop.keep(((size_t)bh * Tq + i) * Tk + j) ? keep_scale : 0.0f) : 1.0f;
            pm = p * mk;
            ds = p * (dp * mk - delta_s[lane]);
        }
        for (int ii = 0; ii < nq; ++ii) {
            const float pmi = __shfl_sync(0xffffffffu, pm, ii);
            const float dsi = __shfl_sync(0xffffffffu, ds, ii);
#pragma unroll
            for (int t = 0; t < DPL; ++t) {
                const int d = lane + t * kWarp;
                if (d < D) {
                    acc_v[t] += pmi * dOs[ii * ld + d];
                    acc_k[t] += dsi * Qs[ii * ld + d];
                }
            }
        }
    }
    if (!key_ok) return;
#pragma unroll
    for (int t = 0; t < DPL; ++t) {
        const int d = lane + t * kWarp;
        if (d < D) {
            dk[key_row * D + d] += acc_k[t];
            dv[key_row * D + d] += acc_v[t];
        }
    }
}

void check_head_dim(const char* who, int D) {
    if (D < 1 || D > kAttentionMaxHeadDim)
        throw Error(std::string(who) + ": head dimension D = " + std::to_string(D) + ", expected 1 .. " +
                    std::to_string(kAttentionMaxHeadDim));
}

void check_batch_heads(const char* who, int B, int H) {  // B*H is the grid's y dimension
    if ((long long)B * H > 65535)
        throw Error(std::string(who) + ": B * H = " + std::to_string((long long)B * H) + ", expected at most 65535");
}

DropoutDev to_dev(const Dropout* d) {
    if (!d || !d->active()) return DropoutDev{};
    return DropoutDev{d->p, d->seed, d->offset};
}

// Calls f.template operator()<DPL>() with DPL = ceil(D / 32) in 1..4.
template <class F>
void dispatch_dpl(int D, F&& f) {
    switch ((D + kWarp - 1) / kWarp) {
        case 1: f(std::integral_constant<int, 1>{}); break;
        case 2: f(std::integral_constant<int, 2>{}); break;
        case 3: f(std::integral_constant<int, 3>{}); break;
        default: f(std::integral_constant<int, 4>{}); break;
    }
}

}  // namespace

void attention_forward_cuda(float* out, float* probs, const float* q, const float* k, const float* v,
                            const AttnMask& mask, int B, int H, int Tq, int Tk, int D, float scale,
                            float* row_logsumexp, const Dropout* dropout) {
    check_head_dim("attention_forward_cuda", D);
    check_batch_heads("attention_forward_cuda", B, H);
    if (B <= 0 || H <= 0 || Tq <= 0) return;
    if (scale <= 0.0f) scale = 1.0f / std::sqrt((float)D);
    const dim3 grid(ceil_div(Tq, kRows), B * H);
    const size_t shared = sizeof(float) * (2 * kTile * (D + 1) + kRows * D);
    const DropoutDev drop = to_dev(dropout);
    dispatch_dpl(D, [&](auto dpl) {
        attention_forward_kernel<decltype(dpl)::value><<<grid, kRows * kWarp, shared>>>(
            out, probs, row_logsumexp, q, k, v, mask, drop, H, Tq, Tk, D, scale);
    });
    CUDA_CHECK_LAUNCH("attention_forward_kernel");
}

void attention_backward_cuda(float* dq, float* dk, float* dv, float* delta_scratch, const float* dout,
                             const float* q, const float* k, const float* v, const float* out,
                             const float* row_logsumexp, const AttnMask& mask, int B, int H, int Tq, int Tk, int D,
                             float scale, const Dropout* dropout) {
    check_head_dim("attention_backward_cuda", D);
    check_batch_heads("attention_backward_cuda", B, H);
    if (B <= 0 || H <= 0 || Tq <= 0 || Tk <= 0) return;
    if (scale <= 0.0f) scale = 1.0f / std::sqrt((float)D);
    DeviceBuffer<float> own_delta;
    if (!delta_scratch) {
        own_delta = DeviceBuffer<float>((size_t)B * H * Tq);
        delta_scratch = own_delta.get();
    }
    const DropoutDev drop = to_dev(dropout);
    const size_t shared = sizeof(float) * (2 * kTile * (D + 1) + 2 * kRows * D);
    dispatch_dpl(D, [&](auto dpl) {
        constexpr int DPL = decltype(dpl)::value;
        attention_backward_dq_kernel<DPL><<<dim3(ceil_div(Tq, kRows), B * H), kRows * kWarp, shared>>>(
            dq, delta_scratch, dout, q, k, v, out, row_logsumexp, mask, drop, H, Tq, Tk, D, scale);
        CUDA_CHECK_LAUNCH("attention_backward_dq_kernel");
        attention_backward_dkdv_kernel<DPL><<<dim3(ceil_div(Tk, kRows), B * H), kRows * kWarp, shared>>>(
            dk, dv, dout, q, k, v, row_logsumexp, delta_scratch, mask, drop, H, Tq, Tk, D, scale);
        CUDA_CHECK_LAUNCH("attention_backward_dkdv_kernel");
    });
    // own_delta is freed here; cudaFree waits for the kernels that use it.
}

}  // namespace attend::cuda
