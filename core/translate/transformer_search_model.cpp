#include "translate/transformer_search_model.h"

#include "error.h"

#include <algorithm>
#include <string>
#include <vector>

namespace attend {
namespace {

// rows holds B equal rows; keep rows parents[0..n) in that order.
template <typename T>
void gather_rows(std::vector<T>& rows, int B, const int* parents, int n) {
    if (rows.empty()) return;
    const size_t width = rows.size() / static_cast<size_t>(B);
    std::vector<T> out(width * static_cast<size_t>(n));
    for (int i = 0; i < n; i++)
        std::copy_n(rows.begin() + static_cast<size_t>(parents[i]) * width, width, out.begin() + i * width);
    rows.swap(out);
}

}  // namespace

TransformerSearchModel::TransformerSearchModel(const Transformer& model, const int* src, int S, int capacity)
    : model_(model) {
    transformer_start_decoding(state_, model, src, nullptr, 1, S, capacity);
}

int TransformerSearchModel::vocab_size() const { return model_.config.tgt_vocab; }

void TransformerSearchModel::step(float* logits, const int* last_tokens, int n) {
    if (n != state_.B)
        throw Error("search model: step with " + std::to_string(n) + " hypotheses, the caches hold " +
                    std::to_string(state_.B));
    transformer_decode_step(logits, state_, model_, last_tokens);
}

void TransformerSearchModel::select(const int* parents, int n) {
    const int B = state_.B;
    for (int i = 0; i < n; i++)
        if (parents[i] < 0 || parents[i] >= B)
            throw Error("search model: parent " + std::to_string(parents[i]) + " outside 0.." + std::to_string(B - 1));
    gather_rows(state_.memory, B, parents, n);
    gather_rows(state_.src_valid_lens, B, parents, n);
    for (DecoderBlockCache& cache : state_.layers) {
        gather_rows(cache.self_k, B, parents, n);
        gather_rows(cache.self_v, B, parents, n);
        gather_rows(cache.memory_k, B, parents, n);
        gather_rows(cache.memory_v, B, parents, n);
        gather_rows(cache.self_weights, B, parents, n);
        gather_rows(cache.cross_weights, B, parents, n);
    }
    state_.B = n;
}

}  // namespace attend
