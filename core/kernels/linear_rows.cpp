#include "kernels/linear_rows.h"

#include "io/safetensors.h"  // half_to_float
#include "kernels/simd.h"  // before Eigen: it silences GCC 12's false AVX-512 warnings in Eigen's GEMM

#include <Eigen/Core>

#if defined(__AVX512F__) || defined(__F16C__)
#include <immintrin.h>
#endif
#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace attend {

namespace {

using simd::VecF;
using simd::kWidth;

constexpr int kBlockMaxIC = 512;  // widest input the F16 block conversion takes (on the stack)

// kWidth weights as floats, from floats or from half floats.
inline VecF load_weights(const float* p) { return simd::load(p); }

inline VecF load_weights(const uint16_t* p) {
#if defined(__AVX512F__) && !defined(XSIMD_NO_SUPPORTED_ARCHITECTURE)
    static_assert(kWidth == 16, "xsimd's AVX-512 batch");
    return VecF(_mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))));
#elif defined(__F16C__) && defined(__AVX__) && !defined(XSIMD_NO_SUPPORTED_ARCHITECTURE)
    static_assert(kWidth == 8, "xsimd's AVX batch");
    return VecF(_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
#elif defined(__wasm_simd128__) && !defined(XSIMD_NO_SUPPORTED_ARCHITECTURE)
    // WebAssembly has no half-float conversion; four instructions do it exactly. Sign-extending the half puts its
    // sign in bit 31 (and in bits 28-30, which the mask clears); exponent and mantissa shift into place under a
    // float exponent 112 too small, and the multiply by 2^112 rebiases it (half subnormals included).
    static_assert(kWidth == 4, "xsimd's SSE4.1 batch as WebAssembly SIMD");
    const v128_t bits = wasm_v128_and(wasm_i32x4_shl(wasm_i32x4_load16x4(p), 13), wasm_i32x4_const_splat(0x8FFFE000));
    return VecF(static_cast<__m128>(wasm_f32x4_mul(bits, wasm_f32x4_const_splat(0x1p112f))));
#else
    alignas(64) float lanes[kWidth];
    for (int i = 0; i < kWidth; ++i) lanes[i] = half_to_float(p[i]);
    return simd::load(lanes);
#endif
}

inline VecF load_weights_partial(const float* p, int n) { return simd::load_partial(p, n, 0.0f); }

inline VecF load_weights_partial(const uint16_t* p, int n) {
    alignas(64) float lanes[kWidth];
    for (int i = 0; i < kWidth; ++i) lanes[i] = i < n ? half_to_float(p[i]) : 0.0f;
    return simd::load(lanes);
}

// The dot products of one input row x [IC] with kWidth weight rows w [kWidth,IC], as one vector (lane j: row j).
template <typename W>
inline VecF dot_block(const float* x, const W* w, int IC) {
    // The kWidth rows advance together, so their independent sums keep the adder busy instead of each waiting on
    // its own latency. Each row's sum still runs in index order, as dot1's does.
    VecF acc[kWidth];
    for (int j = 0; j < kWidth; ++j) acc[j] = VecF(0.0f);
    const int nv = simd::vector_part(IC);
    for (int i = 0; i < nv; i += kWidth) {
        const VecF xv = simd::load(x + i);
        for (int j = 0; j < kWidth; ++j) acc[j] = simd::fma(xv, load_weights(w + (long)j * IC + i), acc[j]);
    }
    if (nv < IC) {
        const VecF xv = simd::load_partial(x + nv, IC - nv, 0.0f);
        for (int j = 0; j < kWidth; ++j)
            acc[j] = simd::fma(xv, load_weights_partial(w + (long)j * IC + nv, IC - nv), acc[j]);
    }
    return simd::reduce_sum_rows(acc);
}

template <typename W>
inline float dot1(const float* x, const W* w, int IC) {
    VecF a(0.0f);
    const int nv = simd::vector_part(IC);
    for (int i = 0; i < nv; i += kWidth) a = simd::fma(simd::load(x + i), load_weights(w + i), a);
    if (nv < IC) a = simd::fma(simd::load_partial(x + nv, IC - nv, 0.0f), load_weights_partial(w + nv, IC - nv), a);
    return simd::reduce_sum(a);
}

// Output columns o0..OC-1 (fewer than kWidth), one dot product at a time.
template <typename W>
void linear_rows_tail(float* out, const float* x, const W* weight, const float* bias, int o0, int N, int IC, int OC) {
    for (int o = o0; o < OC; ++o)
        for (int r = 0; r < N; ++r)
            out[(long)r * OC + o] = dot1(x + (long)r * IC, weight + (long)o * IC, IC) + (bias ? bias[o] : 0.0f);
}

// Without SIMD (kWidth 1): four weight rows at a time, so that four independent sums keep the CPU busy (one
// sum alone waits on the latency of every add). Each sum runs in the same order as dot_block's.
template <typename W>
int linear_rows_scalar4(float* out, const float* x, const W* weight, const float* bias, int N, int IC, int OC) {
    int o = 0;
    for (; o + 4 <= OC; o += 4) {
        const W* w = weight + (long)o * IC;
        for (int r = 0; r < N; ++r) {
            const float* xr = x + (long)r * IC;
            VecF a0(0.0f), a1(0.0f), a2(0.0f), a3(0.0f);
            for (int i = 0; i < IC; ++i) {
                const VecF xv = simd::load(xr + i);
                a0 = simd::fma(xv, load_weights(w + i), a0);
                a1 = simd::fma(xv, load_weights(w + IC + i), a1);
                a2 = simd::fma(xv, load_weights(w + 2 * IC + i), a2);
                a3 = simd::fma(xv, load_weights(w + 3 * IC + i), a3);
            }
            float* y = out + (long)r * OC + o;
            const VecF sums[4] = {a0, a1, a2, a3};
            for (int j = 0; j < 4; ++j) y[j] = simd::reduce_sum(sums[j]) + (bias ? bias[o + j] : 0.0f);
        }
    }
    return o;
}

template <typename W>
void linear_rows(float* out, const float* x, const W* weight, const float* bias, int N, int IC, int OC) {
    int o = 0;
    if constexpr (kWidth == 1) o = linear_rows_scalar4(out, x, weight, bias, N, IC, OC);
    // kWidth weight rows at a time: they stay in L1 while every input row passes over them, and their kWidth dot
    // products with one input row come out as one vector.
    for (; o + kWidth <= OC; o += kWidth) {
        const W* w = weight + (long)o * IC;
        for (int r = 0; r < N; ++r) {
            VecF y = dot_block(x + (long)r * IC, w, IC);
            if (bias) y += simd::load(bias + o);
            simd::store(out + (long)r * OC + o, y);
        }
    }
    linear_rows_tail(out, x, weight, bias, o, N, IC, OC);
}

// Half-float weights for several rows: each block of kWidth weight rows is converted once, not once per row.
// IC: a multiple of kWidth, at most kBlockMaxIC.
void linear_rows_f16_block(float* out, const float* x, const uint16_t* weight, const float* bias, int N, int IC,
                           int OC) {
    alignas(64) float block[kWidth * kBlockMaxIC];
    int o = 0;
    for (; o + kWidth <= OC; o += kWidth) {
        const uint16_t* w = weight + (long)o * IC;
        for (int i = 0; i + kWidth <= kWidth * IC; i += kWidth) simd::store(block + i, load_weights(w + i));
        for (int r = 0; r < N; ++r) {
            VecF y = dot_block(x + (long)r * IC, static_cast<const float*>(block), IC);
            if (bias) y += simd::load(bias + o);
            simd::store(out + (long)r * OC + o, y);
        }
    }
    linear_rows_tail(out, x, weight, bias, o, N, IC, OC);
}

}  // namespace

void linear_rows_forward(float* out, const float* x, const float* weight, const float* bias, int N, int IC, int OC) {
#if defined(XSIMD_NO_SUPPORTED_ARCHITECTURE)
    // Without SIMD, one row goes faster through Eigen's matrix-vector product (it keeps more sums going at once).
    if (N == 1) {
        using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
        Eigen::Map<Eigen::RowVectorXf> y(out, OC);
        y.noalias() = Eigen::Map<const Eigen::RowVectorXf>(x, IC) * Eigen::Map<const RowMatrix>(weight, OC, IC).transpose();
        if (bias) y += Eigen::Map<const Eigen::RowVectorXf>(bias, OC);
        return;
    }
#endif
    linear_rows(out, x, weight, bias, N, IC, OC);
}

void linear_rows_forward_f16(float* out, const float* x, const uint16_t* weight, const float* bias, int N, int IC,
                             int OC) {
    if (N > 1 && IC % kWidth == 0 && IC <= kBlockMaxIC)
        linear_rows_f16_block(out, x, weight, bias, N, IC, OC);
    else
        linear_rows(out, x, weight, bias, N, IC, OC);
}

bool linear_rows_f16_fast() {
    // WebAssembly too: its conversion costs four instructions per vector and alone made the 128x9712 product
    // slower (190 vs 137 us in Node, weights in cache), but reading half the bytes kept whole translations at
    // 6.2 ms a sentence where the float weights took 10.4 on a shared host (L3 taken by neighbours), and equal on
    // a quiet one.
#if (defined(__AVX512F__) || (defined(__F16C__) && defined(__AVX__)) || defined(__wasm_simd128__)) && \
    !defined(XSIMD_NO_SUPPORTED_ARCHITECTURE)
    return true;
#else
    return false;
#endif
}

}  // namespace attend
