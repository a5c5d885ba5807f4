// The seeds' Seq2SeqEncoder (d2l): embedding -> multi-layer GRU, time-major outputs.
// Parameters (PyTorch names under `prefix`, e.g. "encoder."): embedding.weight [V, E], rnn.weight_ih_l{k}, ...
#pragma once
#include <string>
#include <vector>

#include "model/arena.h"
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

    // The activations the backward needs: token ids, and one arena (planned from (B, T), kept while later calls
    // have the same sizes) holding the embeddings and every activation of the GRU stack (rnn().saved points into
    // it). A copy starts unplanned, as Rnn::Saved.
    struct SavedActivations {
        int B = 0, T = 0;             // the planned sizes; 0 = not planned
        std::vector<int> ids;         // [T, B] (time-major)
        float* embedded = nullptr;    // [T, B, E]
        float* outputs = nullptr;     // [T, B, D*H] where forward writes the outputs when the caller passes none
        Arena arena;
    };
    using Saved = CopiesUnplanned<SavedActivations>;
    Saved saved;

private:
    void plan(int B, int T);  // carves saved (and rnn_.saved) from saved.arena for (B, T)

    Seq2SeqConfig config_;
    ParameterStore* store_;
    size_t embedding_ = 0;
    Rnn rnn_;
};

}  // namespace attend
