#include "train/xavier_init.h"

#include <cmath>

#include "model/dropout.h"
#include "model/parameter_store.h"

namespace attend {

void xavier_uniform(float* w, int rows, int cols, uint64_t seed, uint64_t counter0, float gain) {
    const float a = gain * std::sqrt(6.0f / float(rows + cols));
    const int64_t n = int64_t(rows) * cols;
    for (int64_t i = 0; i < n; ++i) w[i] = a * (2.0f * uniform_at(seed, counter0 + uint64_t(i)) - 1.0f);
}

static bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool xavier_applies(const std::string& name, const std::vector<int>& shape) {
    if (shape.size() != 2 || name.find("embedding") != std::string::npos) return false;
    return ends_with(name, ".weight") || name == "weight" || name.find("weight_ih") != std::string::npos ||
           name.find("weight_hh") != std::string::npos;
}

int xavier_init_weights(ParameterStore& store, uint64_t seed,
                        const std::function<bool(const std::string&, const std::vector<int>&)>& applies) {
    int count = 0;
    for (const TensorSpec& spec : store.specs()) {
        const bool yes = applies ? applies(spec.name, spec.shape) : xavier_applies(spec.name, spec.shape);
        if (!yes || spec.shape.size() != 2) continue;
        xavier_uniform(store.value_at(spec.offset), spec.shape[0], spec.shape[1], seed, spec.offset);
        ++count;
    }
    return count;
}

}  // namespace attend
