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

void Seq2SeqEncoder::forward(float* outputs, float* state, const int* X, int B, int T, bool training,
                             DropoutStream* dropout) {
    const int E = config_.embed_size;
    saved.B = B;
    saved.T = T;
    saved.ids.resize(size_t(T) * B);
    for (int b = 0; b < B; ++b)
        for (int t = 0; t < T; ++t) saved.ids[size_t(t) * B + b] = X[size_t(b) * T + t];  // X.permute(1, 0)
    saved.embedded.resize(size_t(T) * B * E);
    embedding_forward(saved.embedded.data(), saved.ids.data(), store_->value_at(embedding_), 1.0f, T * B, E,
                      config_.vocab_size);
    std::vector<float> scratch;
    if (!outputs) {
        scratch.resize(size_t(T) * B * rnn_.output_size());
        outputs = scratch.data();
    }
    rnn_.forward(outputs, state, nullptr, saved.embedded.data(), nullptr, nullptr, T, B, training, dropout);
}

}  // namespace attend
