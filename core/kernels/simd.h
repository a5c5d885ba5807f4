// The small vector abstraction every element-wise and reduction kernel is written against.
//
// VecF is xsimd::batch<float> for the best instruction set the compiler targets (AVX-512, AVX2, SSE; SSE4.1
// becomes WebAssembly SIMD under Emscripten with -msimd128 -msse4.1). When no SIMD instruction set is
// available at all (the non-SIMD WebAssembly build), VecF is a one-lane scalar type with the same interface,
// so each kernel is still written once.
//
// Tail pattern: a kernel runs its vector loop over the first n - n % kWidth elements with load/store and
// handles the remaining n % kWidth elements with load_partial/store_partial, which pad the missing lanes with
// a value that is neutral for the operation (0 for sums, -inf for maxima). The same vector code therefore
// handles every length, including lengths shorter than one vector.
#pragma once
#include <cmath>
#include <limits>

// GCC 12 reports its own AVX-512 intrinsics (_mm512_undefined_ps) as "maybe uninitialized" wherever they are
// inlined (-Wuninitialized when the value is constant-folded); the state of this pragma is recorded where those headers are parsed, so kernels include simd.h
// before any other header that pulls in <immintrin.h> (Eigen).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <xsimd/xsimd.hpp>
#pragma GCC diagnostic pop
#else
#include <xsimd/xsimd.hpp>
#endif
#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace attend::simd {

#if defined(XSIMD_NO_SUPPORTED_ARCHITECTURE)

struct VecF {
    static constexpr int size = 1;
    float value = 0.0f;
    VecF() = default;
    VecF(float v) : value(v) {}
    VecF& operator+=(VecF o) { value += o.value; return *this; }
    VecF& operator-=(VecF o) { value -= o.value; return *this; }
    VecF& operator*=(VecF o) { value *= o.value; return *this; }
    VecF& operator/=(VecF o) { value /= o.value; return *this; }
};
inline VecF operator+(VecF a, VecF b) { return VecF(a.value + b.value); }
inline VecF operator-(VecF a, VecF b) { return VecF(a.value - b.value); }
inline VecF operator*(VecF a, VecF b) { return VecF(a.value * b.value); }
inline VecF operator/(VecF a, VecF b) { return VecF(a.value / b.value); }
inline VecF operator-(VecF a) { return VecF(-a.value); }

inline VecF load(const float* p) { return VecF(*p); }
inline void store(float* p, VecF v) { *p = v.value; }
inline VecF fma(VecF a, VecF b, VecF c) { return VecF(a.value * b.value + c.value); }
inline VecF max(VecF a, VecF b) { return VecF(a.value > b.value ? a.value : b.value); }
inline VecF max_number(VecF a, VecF b) { return b.value > a.value ? b : a; }
inline VecF exp(VecF x) { return VecF(std::exp(x.value)); }
inline VecF erf(VecF x) { return VecF(std::erf(x.value)); }
inline VecF tanh(VecF x) { return VecF(std::tanh(x.value)); }
inline float reduce_sum(VecF v) { return v.value; }
inline float reduce_max(VecF v) { return v.value; }
inline VecF reduce_sum_rows(const VecF* rows) { return rows[0]; }

#else

using VecF = xsimd::batch<float>;

inline VecF load(const float* p) { return VecF::load_unaligned(p); }
inline void store(float* p, VecF v) { v.store_unaligned(p); }
inline VecF fma(VecF a, VecF b, VecF c) { return xsimd::fma(a, b, c); }
inline VecF max(VecF a, VecF b) { return xsimd::max(a, b); }
// Lane-wise b where b > a, else a: a NaN in b is skipped (xsimd::max may return it, or drop a's lane for it).
inline VecF max_number(VecF a, VecF b) { return xsimd::select(b > a, b, a); }
#if defined(__wasm_simd128__)
// xsimd's exp step for step (Cephes: k = round(a / ln 2), a degree-5 polynomial in the remainder, times 2^k), in
// WebAssembly SIMD instructions, so it gives the same floats as xsimd::exp on SSE. Through Emscripten's SSE
// headers xsimd's float-to-int conversion runs lane by lane in scalar code, which made exp over a 9712-word
// vocabulary 17x slower than natively; this takes it to WebAssembly's own conversion.
inline VecF exp(VecF a_vec) {
    auto splat_bits = [](unsigned bits) { return wasm_i32x4_splat(static_cast<int>(bits)); };
    auto mul = [](v128_t a, v128_t b) { return wasm_f32x4_mul(a, b); };
    auto add = [](v128_t a, v128_t b) { return wasm_f32x4_add(a, b); };
    const v128_t a = static_cast<v128_t>(static_cast<__m128>(a_vec));
    const v128_t k = wasm_f32x4_nearest(mul(wasm_f32x4_splat(1.442695040888963407359924681001892137426645954152986f), a));
    v128_t x = wasm_f32x4_sub(a, mul(k, splat_bits(0x3f318000)));  // ln 2, high part
    x = wasm_f32x4_sub(x, mul(k, splat_bits(0xb95e8083)));          // ln 2, low part
    v128_t y = add(mul(x, splat_bits(0x3ab778cf)), splat_bits(0x3c098d8b));
    y = add(mul(x, y), splat_bits(0x3d2aa957));
    y = add(mul(x, y), splat_bits(0x3e2aa9a5));
    y = add(mul(x, y), splat_bits(0x3f000000));
    y = add(add(mul(y, mul(x, x)), x), wasm_f32x4_splat(1.0f));
    const v128_t two_to_k = wasm_i32x4_shl(wasm_i32x4_add(wasm_i32x4_trunc_sat_f32x4(k), wasm_i32x4_splat(127)), 23);
    v128_t e = mul(y, two_to_k);
    e = wasm_v128_bitselect(wasm_f32x4_splat(0.0f), e, wasm_f32x4_le(a, wasm_f32x4_splat(-88.3762626647949f)));
    e = wasm_v128_bitselect(wasm_f32x4_splat(std::numeric_limits<float>::infinity()), e,
                            wasm_f32x4_ge(a, wasm_f32x4_splat(88.3762626647949f)));
    return VecF(static_cast<__m128>(e));
}
// xsimd's tanh step for step (Cephes: an odd degree-11 polynomial below 5/8, 1 - 2 / (1 + e^2x) above), over the
// exp above: the same floats as xsimd::tanh on SSE, whose own exp would run lane by lane here.
inline VecF tanh(VecF self) {
    auto bits = [](unsigned b) { return VecF(static_cast<__m128>(wasm_i32x4_splat(static_cast<int>(b)))); };
    const VecF one(1.0f);
    const VecF x = xsimd::abs(self);
    const auto small = x < VecF(0.625f);
    const VecF sign = xsimd::bitofsign(self);
    VecF z = one;
    if (xsimd::any(small)) {
        const VecF x2 = x * x;
        VecF p = xsimd::fma(x2, bits(0xbbbaf0ea), bits(0x3ca9134e));
        p = xsimd::fma(x2, p, bits(0xbd5c1e2d));
        p = xsimd::fma(x2, p, bits(0x3e088393));
        p = xsimd::fma(x2, p, bits(0xbeaaaa99));
        z = xsimd::fma(p * x2, x, x);
        if (xsimd::all(small)) return z ^ sign;
    }
    const VecF r = xsimd::fma(VecF(-2.0f), one / (one + exp(x + x)), one);
    return xsimd::select(small, z, r) ^ sign;
}
#else
inline VecF exp(VecF x) { return xsimd::exp(x); }
inline VecF tanh(VecF x) { return xsimd::tanh(x); }
#endif
inline VecF erf(VecF x) { return xsimd::erf(x); }
inline float reduce_sum(VecF v) { return xsimd::hadd(v); }
// Lane i of the result is the sum of the lanes of rows[i] (rows: kWidth vectors): kWidth sums in one go.
#if defined(__AVX512F__)
// xsimd 8.1's AVX-512 haddp puts the sums of rows 2-5 and 10-13 in the wrong lanes: add each row's two halves
// and use its (correct) AVX haddp on the 8-lane halves.
inline VecF reduce_sum_rows(const VecF* rows) {
    using Half = xsimd::batch<float, xsimd::avx>;
    Half halves[16];
    for (int j = 0; j < 16; ++j) {
        const __m512 r = rows[j];
        halves[j] = Half(_mm256_add_ps(_mm512_castps512_ps256(r),
                                       _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(r), 1))));
    }
    const __m256 lo = xsimd::haddp(halves), hi = xsimd::haddp(halves + 8);
    return VecF(_mm512_castpd_ps(_mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_castps_pd(lo)), _mm256_castps_pd(hi), 1)));
}
#else
inline VecF reduce_sum_rows(const VecF* rows) { return xsimd::haddp(rows); }
#endif
inline float reduce_max(VecF v) {
    alignas(64) float lanes[VecF::size];
    v.store_unaligned(lanes);
    float m = lanes[0];
    for (int i = 1; i < VecF::size; ++i) m = lanes[i] > m ? lanes[i] : m;
    return m;
}

#endif

constexpr int kWidth = VecF::size;

// Loads the first n (< kWidth) elements of p; the other lanes hold `fill`.
inline VecF load_partial(const float* p, int n, float fill) {
    alignas(64) float lanes[kWidth];
    for (int i = 0; i < kWidth; ++i) lanes[i] = i < n ? p[i] : fill;
    return load(lanes);
}

// Stores the first n (< kWidth) lanes of v to p.
inline void store_partial(float* p, VecF v, int n) {
    alignas(64) float lanes[kWidth];
    store(lanes, v);
    for (int i = 0; i < n; ++i) p[i] = lanes[i];
}

// Length of the part of an n-element array that whole vectors cover.
inline int vector_part(int n) { return n - n % kWidth; }

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// Horizontal sum and maximum of n floats. Four independent accumulators: one would make the loop wait on the
// latency of each add instead of the memory.
inline float sum(const float* x, int n) {
    VecF a0(0.0f), a1(0.0f), a2(0.0f), a3(0.0f);
    int i = 0;
    for (; i + 4 * kWidth <= n; i += 4 * kWidth) {
        a0 += load(x + i);
        a1 += load(x + i + kWidth);
        a2 += load(x + i + 2 * kWidth);
        a3 += load(x + i + 3 * kWidth);
    }
    for (; i + kWidth <= n; i += kWidth) a0 += load(x + i);
    if (i < n) a1 += load_partial(x + i, n - i, 0.0f);
    return reduce_sum((a0 + a1) + (a2 + a3));
}

inline float max(const float* x, int n) {
    VecF a0(kNegInf), a1(kNegInf), a2(kNegInf), a3(kNegInf);
    int i = 0;
    for (; i + 4 * kWidth <= n; i += 4 * kWidth) {
        a0 = max(a0, load(x + i));
        a1 = max(a1, load(x + i + kWidth));
        a2 = max(a2, load(x + i + 2 * kWidth));
        a3 = max(a3, load(x + i + 3 * kWidth));
    }
    for (; i + kWidth <= n; i += kWidth) a0 = max(a0, load(x + i));
    if (i < n) a1 = max(a1, load_partial(x + i, n - i, kNegInf));
    return reduce_max(max(max(a0, a1), max(a2, a3)));
}

// out[j] = exp(x[j] - m) for j < n (out may be x); returns their sum. -inf entries give 0.
inline float exp_shifted(float* out, const float* x, int n, float m) {
    const VecF vm(m);
    VecF vsum(0.0f);
    const int nv = vector_part(n);
    for (int j = 0; j < nv; j += kWidth) {
        const VecF e = exp(load(x + j) - vm);
        store(out + j, e);
        vsum += e;
    }
    if (nv < n) {
        // exp(-inf - m) = 0 pads the missing lanes neutrally.
        const VecF e = exp(load_partial(x + nv, n - nv, kNegInf) - vm);
        store_partial(out + nv, e, n - nv);
        vsum += e;
    }
    return reduce_sum(vsum);
}

// x[j] *= factor for j < n.
inline void scale(float* x, int n, float factor) {
    const VecF vf(factor);
    const int nv = vector_part(n);
    for (int j = 0; j < nv; j += kWidth) store(x + j, load(x + j) * vf);
    if (nv < n) store_partial(x + nv, load_partial(x + nv, n - nv, 0.0f) * vf, n - nv);
}

}  // namespace attend::simd
