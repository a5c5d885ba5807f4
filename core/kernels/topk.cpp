#include "kernels/topk.h"

#include "error.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

namespace attend {

int argmax(const float* x, int n) {
    if (n <= 0) throw Error("argmax: expected at least one element, got " + std::to_string(n));
    int best = 0;
    for (int i = 1; i < n; ++i)
        if (x[i] > x[best]) best = i;
    return best;
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
