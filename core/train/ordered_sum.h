// A parallel sum whose value does not depend on the thread count: terms are added in fixed blocks of `block`
// indices (each block in index order), then the block sums in block order. OpenMP's reduction(+) combines the
// threads' partial sums in whatever order they finish, so with three or more threads a run is not repeatable (with
// two, a + b == b + a still holds), and a resumed run would no longer equal an uninterrupted one.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

namespace attend {

// sum over i in [0, n) of term(i), computed in parallel when `parallel`.
template <class Term>
double ordered_sum(int64_t n, int64_t block, bool parallel, const Term& term) {
    const int64_t blocks = (n + block - 1) / block;
    std::vector<double> partial(size_t(blocks > 0 ? blocks : 0), 0.0);
#pragma omp parallel for schedule(static) if (parallel && blocks > 1)
    for (int64_t b = 0; b < blocks; ++b) {
        const int64_t end = std::min(n, (b + 1) * block);
        double s = 0;
        for (int64_t i = b * block; i < end; ++i) s += term(i);
        partial[size_t(b)] = s;
    }
    double sum = 0;
    for (double s : partial) sum += s;
    return sum;
}

}  // namespace attend
