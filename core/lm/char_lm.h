// The seeds' character language model (d2l 8.6 RNNModel, also 9.1-9.4): one-hot input over the vocabulary, a
// recurrent stack (nn.RNN with tanh, nn.GRU or nn.LSTM; one or more layers, optionally bidirectional), and a
// linear layer from the last layer's output [D*H] to logits over the vocabulary. Parameters under d2l's names:
// "rnn.weight_ih_l0" ... (model/rnn.h), "linear.weight" [V, D*H], "linear.bias" [V].
//
// forward() keeps what char_lm_backward (core/train/char_lm_backward.h) needs: the one-hot input, the
// recurrent stack's activations and its output.
#pragma once
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/parameter_store.h"
#include "model/rnn.h"

namespace attend {

struct CharLmConfig {
    RnnKind kind = RnnKind::RNN;
    int vocab_size = 0;
    int hidden_size = 0;
    int num_layers = 1;
    bool bidirectional = false;
};

// {"architecture": "char-rnn-lm", "rnn": "rnn"|"gru"|"lstm", "vocab_size", "hidden_size", "num_layers",
// "bidirectional"}; from_json refuses unknown keys, missing ones and numbers out of model/config_checks.h's bounds.
void to_json(nlohmann::json& j, const CharLmConfig& c);
void from_json(const nlohmann::json& j, CharLmConfig& c);
constexpr const char* kCharLmArchitecture = "char-rnn-lm";

class CharLm {
public:
    // Declares the parameters; allocate() before forward. Not copyable (the stack points into the store).
    explicit CharLm(const CharLmConfig& config);
    CharLm(const CharLm&) = delete;
    CharLm& operator=(const CharLm&) = delete;

    void allocate(bool with_grads) { store_.allocate(with_grads); }
    // PyTorch's defaults for nn.RNN/GRU/LSTM and nn.Linear: every recurrent tensor U(-1/sqrt(H), 1/sqrt(H)), the
    // linear weight and bias U(-1/sqrt(D*H), 1/sqrt(D*H)); drawn from a counter-based generator (the same values on
    // every machine for one seed).
    void init_parameters(uint64_t seed);

    const CharLmConfig& config() const { return config_; }
    ParameterStore& parameters() { return store_; }
    const ParameterStore& parameters() const { return store_; }
    Rnn& rnn() { return rnn_; }
    int vocab_size() const { return config_.vocab_size; }
    int output_size() const { return rnn_.output_size(); }
    // Floats of one hidden state h (or c) for a batch of B: [L*D, B, H].
    size_t state_size(int B) const {
        return size_t(config_.num_layers) * rnn_.directions() * size_t(B) * size_t(config_.hidden_size);
    }
    bool has_cell() const { return config_.kind == RnnKind::LSTM; }

    // X [B, T] token ids (batch-major, as d2l's iterators give them); logits [T*B, V] time-major (row t*B + b, as
    // d2l's output.reshape). h0, c0 [L*D, B, H] or null (zeros); h_n, c_n receive the final states (c: LSTM only;
    // either may be null). An id outside [0, V) throws attend::Error.
    void forward(float* logits, float* h_n, float* c_n, const int* X, const float* h0, const float* c0, int T, int B);

    // Saved by forward for the backward.
    struct Saved {
        int T = 0, B = 0;
        std::vector<float> onehot;   // [T, B, V]
        std::vector<float> rnn_out;  // [T, B, D*H]
    } saved;

    // Offsets of the output layer in the store.
    size_t linear_weight() const { return w_out_; }
    size_t linear_bias() const { return b_out_; }

private:
    CharLmConfig config_;
    ParameterStore store_;
    Rnn rnn_;
    size_t w_out_ = 0, b_out_ = 0;
};

// log-sum-exp form of the cross-entropy of each row of logits [N, V] against targets [N]: returns the sum over the
// rows (in double). Perplexity is exp(sum / N).
double lm_cross_entropy_sum(const float* logits, const int* targets, int N, int V);

// Perplexity of a token stream read in order with the state carried: the model predicts ids[i + 1] from ids[0..i],
// in chunks of `steps` tokens, batch 1 (d2l's perplexity: exp of the mean cross-entropy). Needs >= 2 ids.
double lm_perplexity(CharLm& model, const std::vector<int>& ids, int steps = 256);

// Options of lm_generate: temperature 0 is greedy (argmax, d2l's predict_ch8); otherwise a draw from
// softmax(logits / temperature), restricted to the top_k most likely (0 = all), with draw i made from the
// counter-based uniform of (seed, i) (the same draws on every machine and in WebAssembly).
struct LmGenerateOptions {
    int length = 50;
    float temperature = 0.0f;
    int top_k = 0;
    uint64_t seed = 0;
};

struct LmGeneration {
    std::vector<int> prefix_ids;                  // the prefix as ids (characters outside the vocabulary: <unk>)
    std::vector<int> ids;                         // the generated ids, `length` of them
    std::vector<std::vector<float>> distributions;  // before each generated id: the model's softmax(logits) [V]
};

// d2l's predict_ch8: the prefix's characters are read one at a time (the state warmed up by all but the last),
// then each generated character is fed back, one step at a time (T = 1; a bidirectional stack therefore sees no
// future, which is d2l's point about it). An empty prefix throws attend::Error.
LmGeneration lm_generate(CharLm& model, const std::vector<int>& prefix_ids, const LmGenerateOptions& options);

}  // namespace attend
