#include "kernels/topk.h"

#include "error.h"
#include "kernels/simd.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

namespace attend {

int argmax(const float* x, int n) {
    if (n <= 0) throw Error("argmax: expected at least one element, got " + std::to_string(n));
    // The largest number in vector passes, then its first occurrence: two streaming passes instead of a branch per
    // element (greedy search runs this over the whole vocabulary at every step). NaNs are skipped.
    const int nv = simd::vector_part(n);
    simd::VecF m(simd::kNegInf);
    for (int i = 0; i < nv; i += simd::kWidth) m = simd::max_number(m, simd::load(x + i));
    if (nv < n) m = simd::max_number(m, simd::load_partial(x + nv, n - nv, simd::kNegInf));
    const float largest = simd::reduce_max(m);
    for (int i = 0; i < n; ++i)
        if (x[i] == largest) return i;
    return 0;  // no element equals it: every element is NaN
}

void topk(int* indices, float* values, const float* x, int n, int k) {
    if (k < 0 || k > n)
        throw Error("topk: k = " + std::to_string(k) + " is outside [0, n = " + std::to_string(n) + "]");
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    auto before = [x](int a, int b) { return x[a] > x[b] || (x[a] == x[b] && a < b); };
    std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
    for (int i = 0; i < k; ++i) {
        indices[i] = order[i];
        values[i] = x[order[i]];
    }
}

}  // namespace attend
