// nn.init.xavier_uniform_ as the seeds' xavier_init_weights applies it (every nn.Linear weight and every GRU
// weight_ih/weight_hh; biases and embeddings keep their values): U(-a, a), a = gain * sqrt(6 / (fan_in +
// fan_out)), with PyTorch's fans for a 2-D [fan_out, fan_in] weight. Values come from the counter-based RNG of
// model/dropout.h, so an initialisation is reproducible from its seed.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace attend {

class ParameterStore;

// w: [rows, cols] (fan_out = rows, fan_in = cols). Element i draws counter (counter0 + i) of `seed`.
void xavier_uniform(float* w, int rows, int cols, uint64_t seed, uint64_t counter0 = 0, float gain = 1.0f);

// The seeds' rule: a 2-D tensor whose name ends in ".weight" (a Linear) or contains "weight_ih" / "weight_hh"
// (a GRU/LSTM), and whose name does not contain "embedding" (nn.Embedding is not an nn.Linear).
bool xavier_applies(const std::string& name, const std::vector<int>& shape);

// Applies xavier_uniform to every tensor of the store for which `applies` (default xavier_applies) is true;
// each tensor draws from its own counter range (its offset in the store). Returns how many were initialised.
int xavier_init_weights(ParameterStore& store, uint64_t seed,
                        const std::function<bool(const std::string&, const std::vector<int>&)>& applies = nullptr);

}  // namespace attend
