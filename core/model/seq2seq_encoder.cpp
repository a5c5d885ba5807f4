#include "model/seq2seq_encoder.h"

#include <vector>

#include "error.h"
#include "kernels/embedding.h"
#include "model/parameter_store.h"

namespace attend {

Seq2SeqEncoder::Seq2SeqEncoder(const Seq2SeqConfig& config, ParameterStore* store, const std::string& prefix)
    : config_(config), store_(store) {
    if (config.vocab_size <= 0 || config.embed_size <= 0 || config.num_hiddens <= 0)
        throw Error("seq2seq encoder: vocab_size, embed_size and num_hiddens must be positive");
    embedding_ = store->declare(prefix + "embedding.weight", {config.vocab_size, config.embed_size});
    rnn_ = Rnn(RnnConfig{RnnKind::GRU, config.embed_size, config.num_hiddens, config.num_layers, config.bidirectional,
                         config.dropout},
               store, prefix + "rnn.");
}

void Seq2SeqEncoder::plan(int B, int T) {
    Saved& s = saved;
    auto carve = [&] {
        s.embedded = s.arena.take(size_t(T) * B * config_.embed_size);
        s.outputs = s.arena.take(size_t(T) * B * rnn_.output_size());
        rnn_.plan(s.arena, T, B);
    };
    s.arena.plan(carve);
    s.B = B;
    s.T = T;
}

void Seq2SeqEncoder::forward(float* outputs, float* state, const int* X, int B, int T, bool training,
                             DropoutStream* dropout) {
    const int E = config_.embed_size;
    // The stack's activations may have been re-planned by a direct rnn().forward() of other sizes.
    if (saved.B != B || saved.T != T || !saved.embedded || rnn_.saved.T != T || rnn_.saved.B != B) plan(B, T);
    saved.ids.resize(size_t(T) * B);
    for (int b = 0; b < B; ++b)
        for (int t = 0; t < T; ++t) saved.ids[size_t(t) * B + b] = X[size_t(b) * T + t];  // X.permute(1, 0)
    embedding_forward(saved.embedded, saved.ids.data(), store_->value_at(embedding_), 1.0f, T * B, E,
                      config_.vocab_size);
    rnn_.forward(outputs ? outputs : saved.outputs, state, nullptr, saved.embedded, nullptr, nullptr, T, B, training,
                 dropout);
}

}  // namespace attend
