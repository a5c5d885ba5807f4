// Reordering the rows of a search's state when beam search keeps, drops and duplicates hypotheses.
#pragma once
#include <algorithm>
#include <cstddef>
#include <vector>

namespace attend {

// rows [?, width]: keeps rows parents[0..n) in that order (parents [n], may repeat). An empty vector stays empty.
template <typename T>
void gather_rows(std::vector<T>& rows, size_t width, const int* parents, int n) {
    if (rows.empty()) return;
    std::vector<T> out(width * size_t(n));
    for (int i = 0; i < n; ++i) std::copy_n(rows.begin() + size_t(parents[i]) * width, width, out.begin() + i * width);
    rows.swap(out);
}

}  // namespace attend
