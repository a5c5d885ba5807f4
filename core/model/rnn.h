// nn.RNN (tanh) / nn.GRU / nn.LSTM stacks (time-major, batch_first = False): num_layers layers, optionally bidirectional
// (layer l > 0 reads both directions of layer l - 1, [forward | reverse] concatenated), dropout on the output
// of every layer but the last while training. Parameters live in a ParameterStore under PyTorch's names:
// prefix + "weight_ih_l{k}", "weight_hh_l{k}", "bias_ih_l{k}", "bias_hh_l{k}", with a "_reverse" suffix for the
// reverse direction, so a state_dict maps 1:1 onto the store. The activations the backward needs are kept in
// one arena (model/arena.h) by forward(); core/train/rnn_backward.h consumes them.
#pragma once
#include <string>
#include <vector>

#include "model/arena.h"
#include "model/dropout.h"

namespace attend {

class ParameterStore;

enum class RnnKind { GRU, LSTM, RNN };  // RNN: nn.RNN with tanh

// "gru", "lstm", "rnn"; rnn_kind_from_name throws attend::Error naming the choices.
const char* rnn_kind_name(RnnKind kind);
RnnKind rnn_kind_from_name(const std::string& name);

struct RnnConfig {
    RnnKind kind = RnnKind::GRU;
    int input_size = 0;
    int hidden_size = 0;
    int num_layers = 1;
    bool bidirectional = false;
    float dropout = 0.0f;  // between layers, training only
};

class Rnn {
public:
    struct Weights {  // offsets into the store
        size_t w_ih = 0, w_hh = 0, b_ih = 0, b_hh = 0;
    };

    Rnn() = default;
    // Declares the parameters in `store` (which must outlive the Rnn and be allocated before forward).
    Rnn(const RnnConfig& config, ParameterStore* store, const std::string& prefix);

    const RnnConfig& config() const { return config_; }
    int directions() const { return config_.bidirectional ? 2 : 1; }
    int gate_count() const { return config_.kind == RnnKind::GRU ? 3 : config_.kind == RnnKind::LSTM ? 4 : 1; }
    int output_size() const { return directions() * config_.hidden_size; }
    int layer_input_size(int layer) const { return layer == 0 ? config_.input_size : output_size(); }
    const Weights& weights(int layer, int direction) const { return weights_[size_t(layer * directions() + direction)]; }
    ParameterStore* store() const { return store_; }

    // x [T, B, I]; h0, c0 [L*D, B, H] or null (zeros; c0 for LSTM only). out [T, B, D*H]; h_n, c_n [L*D, B, H] or
    // null (c_n: LSTM only), ordered as PyTorch's (layer 0 forward, layer 0 reverse, layer 1 forward, ...).
    // training: dropout between layers draws its masks from `dropout` (a stream seeded by the caller).
    // x, h0 and c0 must stay alive until the backward has run.
    void forward(float* out, float* h_n, float* c_n, const float* x, const float* h0, const float* c0, int T, int B,
                 bool training = false, DropoutStream* dropout = nullptr);

    // Saved by forward (public for the backward, llm.c style): named pointers into one arena, planned from
    // (T, B) and kept while later calls have the same sizes. A copy starts unplanned, so a backward needs a
    // forward of the copy first.
    struct SavedActivations {
        int T = 0, B = 0;  // the planned sizes; 0 = not planned
        const float* x = nullptr;
        const float* h0 = nullptr;
        const float* c0 = nullptr;
        std::vector<float*> dir_out;   // [L*D] of [T, B, H]
        std::vector<float*> gates;     // [L*D] of [T, B, G*H] (RNN: x W_ih^T + b_ih)
        std::vector<float*> extra;     // [L*D] of [T, B, H]: GRU W_hn h + b_hn, LSTM cell states; RNN: null
        std::vector<float*> layer_in;  // [L]: layer l's input for l > 0 (after dropout), [T, B, D*H]; null for l = 0
        float* layer_out = nullptr;    // [T, B, D*H] a hidden layer's concatenated output, before the dropout (L > 1)
        std::vector<Dropout> dropouts; // [L]: the dropout applied before layer l (l > 0)
        Arena arena;                   // used when the Rnn plans for itself; an owner may carve these from its own
    };
    using Saved = CopiesUnplanned<SavedActivations>;
    Saved saved;

    // Carves saved's activations for (T, B) from `arena`: pass it the counting pass and then the allocated pass
    // of the owner's plan (the pointers stay null while counting). forward() plans into saved.arena by itself
    // when the planned sizes differ from its (T, B).
    void plan(Arena& arena, int T, int B);

private:
    RnnConfig config_;
    ParameterStore* store_ = nullptr;
    std::vector<Weights> weights_;
};

}  // namespace attend
