#include "translate/transformer_search_model.h"

#include "error.h"

#include <string>

namespace attend {

TransformerSearchModel::TransformerSearchModel(const Transformer& model, const int* src, int S, int capacity)
    : model_(model) {
    transformer_start_decoding(state_, model, src, nullptr, 1, S, capacity);
}

TransformerSearchModel::TransformerSearchModel(const Transformer& model, const int* src, const int* src_valid_lens,
                                               int B, int S, int capacity)
    : model_(model) {
    transformer_start_decoding(state_, model, src, src_valid_lens, B, S, capacity);
}

int TransformerSearchModel::vocab_size() const { return model_.config.tgt_vocab; }

void TransformerSearchModel::step(float* logits, const int* last_tokens, int n) {
    if (n != state_.B)
        throw Error("search model: step with " + std::to_string(n) + " hypotheses, the caches hold " +
                    std::to_string(state_.B));
    transformer_decode_step(logits, state_, model_, last_tokens);
}

void TransformerSearchModel::select(const int* parents, int n) {
    // Beam hypotheses share the one encoded source and only their self-attention caches are gathered; the rows of
    // a batch of sentences take their own source along.
    transformer_decoding_select(state_, model_, parents, n);
}

}  // namespace attend
