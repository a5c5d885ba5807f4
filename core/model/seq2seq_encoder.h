// The seeds' Seq2SeqEncoder (d2l): embedding -> multi-layer GRU, time-major outputs.
// Parameters (PyTorch names under `prefix`, e.g. "encoder."): embedding.weight [V, E], rnn.weight_ih_l{k}, ...
#pragma once
#include <string>
#include <vector>

#include "model/dropout.h"
#include "model/rnn.h"

namespace attend {

struct Seq2SeqConfig {
    int vocab_size = 0;
    int embed_size = 0;
    int num_hiddens = 0;
    int num_layers = 1;
    float dropout = 0.0f;
    bool bidirectional = false;  // encoder only (not in the seeds): outputs [T, B, 2H], state [2L, B, H]
};

class Seq2SeqEncoder {
public:
    Seq2SeqEncoder(const Seq2SeqConfig& config, ParameterStore* store, const std::string& prefix = "encoder.");

    // X [B, T] token ids (batch-major, as the seeds feed them). outputs [T, B, D*H] (time-major, as nn.GRU returns
    // them), state [L*D, B, H] (each may be null); D = 2 when bidirectional.
    void forward(float* outputs, float* state, const int* X, int B, int T, bool training = false,
                 DropoutStream* dropout = nullptr);

    const Seq2SeqConfig& config() const { return config_; }
    ParameterStore* store() const { return store_; }
    size_t embedding_offset() const { return embedding_; }
    Rnn& rnn() { return rnn_; }

    struct Saved {
        int B = 0, T = 0;
        std::vector<int> ids;        // [T, B] (time-major)
        std::vector<float> embedded;  // [T, B, E]
    } saved;

private:
    Seq2SeqConfig config_;
    ParameterStore* store_;
    size_t embedding_ = 0;
    Rnn rnn_;
};

}  // namespace attend
