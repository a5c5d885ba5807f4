// Dropout with a seeded counter-based random number generator (PyTorch semantics: kept elements are scaled
// by 1 / (1 - p); p = 0 is the identity, p = 1 zeroes everything).
//
// Counter-based: whether element i is kept depends only on (seed, offset + i). A forward pass therefore needs
// to store no mask: the backward recomputes it from the same (seed, offset). Runs are reproducible whatever the
// thread count or the order in which layers run. It lives in core/ (header-only, portable) because forward
// passes take a Dropout descriptor; training code includes it as "train/dropout.h".
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace attend {

// SplitMix64 finaliser: a bijective mix with good avalanche, so consecutive counters give independent bits.
inline uint64_t mix64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// The 24 random bits of (seed, counter), given key = mix64(seed).
inline int32_t draw24(uint64_t key, uint64_t counter) { return int32_t(mix64(key ^ counter) >> 40); }

// Uniform in [0, 1) with 24 random bits, a pure function of (seed, counter): exactly draw24 * 2^-24.
inline float uniform_at(uint64_t seed, uint64_t counter) {
    return float(draw24(mix64(seed), counter)) * (1.0f / 16777216.0f);
}

// Standard normal (Box-Muller) from the counters 2*counter and 2*counter+1.
float normal_at(uint64_t seed, uint64_t counter);

// One dropout site. p = 0 (the default) disables it; `offset` is the first counter this site uses.
struct Dropout {
    float p = 0.0f;
    uint64_t seed = 0;
    uint64_t offset = 0;
    // A data-parallel share of a time-major tensor ([steps, rows, ...], DropoutStream::next_time_major): element i
    // takes counter offset + (i / run) * stride + i % run, each step's run of this share's rows inside the stride of
    // the whole batch's. run 0: element i takes offset + i.
    uint64_t run = 0, stride = 0;

    bool active() const { return p > 0.0f; }
    uint64_t counter(uint64_t i) const { return run ? offset + (i / run) * stride + i % run : offset + i; }
    bool keep(uint64_t i) const { return uniform_at(seed, counter(i)) >= p; }
    float scale() const { return p < 1.0f ? 1.0f / (1.0f - p) : 0.0f; }
    // keep(i) as a test on the 24 bits: draw * 2^-24 >= p holds exactly when draw >= p * 2^24 rounded up (the
    // draw converts to float without rounding and the scaling is by a power of two).
    int32_t threshold() const {
        return p >= 1.0f ? int32_t(1) << 24 : int32_t(std::max(0.0, std::ceil(double(p) * 16777216.0)));
    }
};

// keep ? a : b as a bit mask, which compilers vectorize, where a branch would mispredict on a random share of the
// elements (30% at p = 0.3) and cost more than drawing them.
inline float select_kept(bool keep, float a, float b) {
    uint32_t ua, ub;
    std::memcpy(&ua, &a, sizeof ua);
    std::memcpy(&ub, &b, sizeof ub);
    const uint32_t mask = 0u - uint32_t(keep);
    const uint32_t r = (ua & mask) | (ub & ~mask);
    float out;
    std::memcpy(&out, &r, sizeof out);
    return out;
}

// Runs body(begin, m, draws) over the site's n elements in blocks, draws[j] = the 24-bit draw of element begin + j
// (keep(begin + j) == (draws[j] >= threshold())). The 64-bit mix runs in a loop of its own so that compilers
// vectorize it (AVX2 has no 64-bit multiply; GCC builds one from 32-bit multiplies); mixed into the
// element loop it stays scalar and costs more than the rest of the dropout. Blocks on several threads give the
// same result as one: every element's draw depends on its counter alone.
constexpr int64_t kDropoutBlock = 512;

template <class Body>
void for_each_dropout_block(const Dropout& d, int64_t n, Body body) {
    const uint64_t key = mix64(d.seed);
#pragma omp parallel for if (n > 65536)
    for (int64_t begin = 0; begin < n; begin += kDropoutBlock) {
        int32_t draws[kDropoutBlock];
        const int64_t m = std::min(kDropoutBlock, n - begin);
        if (d.run) {
            for (int64_t j = 0; j < m; ++j) draws[j] = draw24(key, d.counter(uint64_t(begin + j)));
        } else {
            const uint64_t first = d.offset + uint64_t(begin);
            for (int64_t j = 0; j < m; ++j) draws[j] = draw24(key, first + uint64_t(j));
        }
        body(begin, m, draws);
    }
}

// Hands out non-overlapping counter ranges to the dropout sites of a model, one range per call. Layers that
// have their own configured rate (Rnn, the seq2seq models) take the seed and counters from the stream and
// override p with theirs.
class DropoutStream {
public:
    DropoutStream(float p = 0.0f, uint64_t seed = 0) : p_(p), seed_(seed) {}
    // Data-parallel training: this process holds rows [row_begin, row_begin + rows) of a batch of total_rows. Every
    // tensor a Transformer drops is laid out with the batch first, so element i of this share is element
    // row_begin * (n / rows) + i of the whole batch's, and each site skips the whole batch's elements: every rank
    // draws exactly the masks one process would draw for the whole batch. (A recurrent layer's time-major outputs
    // take next_time_major.)
    void set_rows(int64_t row_begin, int64_t rows, int64_t total_rows) {
        row_begin_ = row_begin;
        rows_ = rows;
        total_rows_ = total_rows;
    }
    Dropout next(uint64_t n) { return next(n, p_); }
    // A site with its own rate: it takes the same counters as next(n), so a site's rate never moves the masks of
    // the sites after it.
    Dropout next(uint64_t n, float p) {
        if (rows_ == total_rows_) {
            Dropout d{p, seed_, counter_};
            counter_ += n;
            return d;
        }
        const uint64_t per_row = n / uint64_t(rows_);  // n is rows * (elements per row)
        Dropout d{p, seed_, counter_ + uint64_t(row_begin_) * per_row};
        counter_ += per_row * uint64_t(total_rows_);
        return d;
    }
    // A site over a time-major tensor [steps, rows, ...] (a recurrent layer's outputs): in one process the same
    // counters as next(n, p); on a share of the rows, each step's rows take the counters the whole batch's same rows
    // take at that step, so that the ranks draw one process's masks here too.
    Dropout next_time_major(uint64_t n, uint64_t steps, float p) {
        if (rows_ == total_rows_ || steps == 0) return next(n, p);
        const uint64_t per_row = n / steps / uint64_t(rows_);
        Dropout d{p, seed_, counter_ + uint64_t(row_begin_) * per_row};
        d.run = per_row * uint64_t(rows_);
        d.stride = per_row * uint64_t(total_rows_);
        counter_ += steps * d.stride;
        return d;
    }
    float p() const { return p_; }
    uint64_t counter() const { return counter_; }
    void set_counter(uint64_t c) { counter_ = c; }

private:
    float p_;
    uint64_t seed_;
    uint64_t counter_ = 0;
    int64_t row_begin_ = 0, rows_ = 1, total_rows_ = 1;
};

// out = dropout(x); out may equal x. With an inactive descriptor it copies. out, x: [n]
void dropout_forward(float* out, const float* x, const Dropout& d, int64_t n);

}  // namespace attend
