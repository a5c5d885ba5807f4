#include "train/trainable_model.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "error.h"
#include "translate/bahdanau_network.h"
#include "translate/transformer_network.h"
#include "train/seq2seq_attention_decoder_backward.h"
#include "train/seq2seq_encoder_backward.h"
#include "train/transformer_backward.h"
#include "train/xavier_init.h"

namespace attend {
namespace {

class TrainableTransformer : public TrainableModel {
public:
    explicit TrainableTransformer(Transformer& model) : model_(model) {}

    float* forward(const TrainBatch& b, DropoutStream* dropout) override {
        plan_transformer(acts_, model_.config, b.B, b.S, b.T);  // reuses the arena's memory from the last step
        transformer_train_forward(acts_, model_, b.src.data(), b.src_valid.data(), b.tgt_in.data(), b.tgt_valid.data(),
                                  dropout);
        return acts_.logits;
    }

    void backward(const TrainBatch& b, const float* dlogits) override {
        transformer_backward(model_, acts_, dlogits, b.src.data(), b.tgt_in.data());
    }

    bool dropout_follows_rows() const override { return true; }

private:
    Transformer& model_;
    TransformerActivations acts_;
};

class TrainableBahdanau : public TrainableModel {
public:
    explicit TrainableBahdanau(BahdanauSeq2Seq& model) : model_(model) {}

    float* forward(const TrainBatch& b, DropoutStream* dropout) override {
        const BahdanauConfig& c = model_.config;
        const bool training = dropout != nullptr;
        const Seq2SeqAttentionDecoder& decoder = model_.decoder;
        enc_out_.resize(size_t(b.S) * b.B * decoder.key_size());
        enc_state_.resize(size_t(decoder.encoder_state_layers()) * b.B * c.num_hiddens);
        hidden_.resize(size_t(c.num_layers) * b.B * c.num_hiddens);
        logits_.resize(size_t(b.B) * b.T * c.tgt_vocab);
        // The seeds: the encoder GRU reads the whole padded source; attention masks keys past the valid length.
        model_.encoder.forward(enc_out_.data(), enc_state_.data(), b.src.data(), b.B, b.S, training, dropout);
        model_.decoder.init_state(hidden_.data(), enc_state_.data(), b.B);
        model_.decoder.forward(logits_.data(), nullptr, b.tgt_in.data(), enc_out_.data(), hidden_.data(),
                               b.src_valid.data(), b.B, b.T, b.S, training, dropout);
        return logits_.data();
    }

    void backward(const TrainBatch& b, const float* dlogits) override {
        denc_out_.assign(enc_out_.size(), 0.0f);
        denc_state_.assign(enc_state_.size(), 0.0f);
        dhidden_.assign(hidden_.size(), 0.0f);
        seq2seq_attention_decoder_backward(model_.decoder, denc_out_.data(), dhidden_.data(), dlogits, nullptr);
        seq2seq_attention_decoder_init_state_backward(model_.decoder, denc_state_.data(), dhidden_.data(), b.B);
        seq2seq_encoder_backward(model_.encoder, denc_out_.data(), denc_state_.data());
    }

    // The decoder's sites are per step, batch first; the encoder's between its layers time-major (next_time_major).
    bool dropout_follows_rows() const override { return true; }

private:
    BahdanauSeq2Seq& model_;
    // [S, B, K], [L*D, B, H] (K = D*H, D = 2 with a bidirectional encoder), [L, B, H] the decoder's start, [B, T, V]
    std::vector<float> enc_out_, enc_state_, hidden_, logits_;
    std::vector<float> denc_out_, denc_state_, dhidden_;
};

// The flags only bound each number by itself; the model's own rules (heads dividing the dimension, ...) are
// checked here with stand-in vocabulary sizes.
template <class Config>
void validate_with_stand_in_vocabularies(Config c) {
    c.src_vocab = c.tgt_vocab = std::max(c.pad_id + 1, 8);
    c.validate();
}

// The run's config with the vocabularies and the padding id that the corpus decides.
template <class Config>
Config with_corpus(Config c, int src_vocab, int tgt_vocab, int pad_id) {
    c.src_vocab = src_vocab;
    c.tgt_vocab = tgt_vocab;
    c.pad_id = pad_id;
    return c;
}

void check_transformer_options(const TrainOptions& o) {
    if (o.rnn.bidirectional) throw Error("--bidirectional is a bahdanau option (its encoder GRU); a Transformer's "
                                         "encoder already reads both ways");
    validate_with_stand_in_vocabularies(o.model);
}

std::unique_ptr<TranslatorNetwork> build_transformer(TrainOptions& o, int src_vocab, int tgt_vocab, int pad_id) {
    const TransformerConfig config = with_corpus(o.model, src_vocab, tgt_vocab, pad_id);
    if (config.tie_embeddings && config.src_vocab != config.tgt_vocab)
        throw Error("tied embeddings need one joint vocabulary (corpus.joint_vocab)");
    if (o.num_steps > config.max_len)
        throw Error("num_steps " + std::to_string(o.num_steps) + " exceeds the Transformer's max_len " +
                    std::to_string(config.max_len));
    o.model = config;
    return std::make_unique<TransformerNetwork>(config, /*with_grads=*/true);
}

std::unique_ptr<TrainableModel> trainable_transformer(TranslatorNetwork& network) {
    return std::make_unique<TrainableTransformer>(network_as<TransformerNetwork>(network, "training").model);
}

// The forward scales embeddings by sqrt(C): N(0, 1/C) makes them N(0, 1) there.
float transformer_embedding_std(const TranslatorNetwork& network) {
    return 1.0f / std::sqrt(static_cast<float>(network_as<TransformerNetwork>(network, "training").model.config.model_dim));
}

void check_bahdanau_options(const TrainOptions& o) {
    // The GRU model drops its attention weights at its one rate; a second rate it would ignore must not pass silently.
    if (o.model.attention_dropout)
        throw Error("--attention-dropout is a Transformer option; the bahdanau presets drop everything at --dropout");
    validate_with_stand_in_vocabularies(o.rnn);
}

// o.rnn keeps the run's choices only: the vocabularies, num_steps and pad come from the corpus and the options.
std::unique_ptr<TranslatorNetwork> build_bahdanau(TrainOptions& o, int src_vocab, int tgt_vocab, int pad_id) {
    BahdanauConfig config = with_corpus(o.rnn, src_vocab, tgt_vocab, pad_id);
    config.num_steps = o.num_steps;
    config.validate();
    return std::make_unique<BahdanauNetwork>(config, /*with_grads=*/true);
}

std::unique_ptr<TrainableModel> trainable_bahdanau(TranslatorNetwork& network) {
    return std::make_unique<TrainableBahdanau>(network_as<BahdanauNetwork>(network, "training").model);
}

float bahdanau_embedding_std(const TranslatorNetwork&) { return 1.0f; }

bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

const TrainingArchitecture& training_architecture(const std::string& name) {
    static const TrainingArchitecture architectures[] = {
        {TransformerNetwork::kArchitecture, check_transformer_options, build_transformer, trainable_transformer,
         transformer_embedding_std},
        {BahdanauNetwork::kArchitecture, check_bahdanau_options, build_bahdanau, trainable_bahdanau,
         bahdanau_embedding_std},
    };
    std::string known;
    for (const TrainingArchitecture& a : architectures) {
        if (name == a.name) return a;
        known += std::string(known.empty() ? "" : " or ") + "\"" + a.name + "\"";
    }
    throw Error("architecture '" + name + "' is unknown (expected " + known + ")");
}

std::unique_ptr<TrainableModel> make_trainable(TranslatorModel& model) {
    if (!model.parameters().has_grads()) throw Error("training: the model was allocated without gradients");
    return training_architecture(model.architecture()).trainable(*model.network);
}

void initialise_parameters(TranslatorModel& model, const std::string& scheme, uint64_t seed) {
    if (scheme != "scaled" && scheme != "seeds")
        throw Error("initialisation '" + scheme + "' is unknown (expected \"scaled\" or \"seeds\")");
    ParameterStore& params = model.parameters();
    xavier_init_weights(params, seed);
    const float embedding_std =
        scheme == "seeds" ? 1.0f : training_architecture(model.architecture()).scaled_embedding_std(*model.network);
    for (const TensorSpec& spec : params.specs()) {
        float* w = params.value_at(spec.offset);
        if (spec.name.find("embedding") != std::string::npos) {
            for (size_t i = 0; i < spec.size; i++) w[i] = normal_at(seed ^ 0xE3B0C442ull, spec.offset + i) * embedding_std;
            continue;
        }
        if (scheme != "seeds" || spec.shape.size() != 1 || spec.name.find("norm") != std::string::npos) continue;
        float fan_in = 0;
        if (spec.name.find("rnn.bias_") != std::string::npos) {
            fan_in = static_cast<float>(spec.shape[0] / 3);  // nn.GRU: U(-1/sqrt(H), 1/sqrt(H)), H = rows / 3
        } else if (ends_with(spec.name, ".bias")) {
            const std::string weight = spec.name.substr(0, spec.name.size() - 5) + ".weight";
            if (!params.contains(weight) || params.spec(weight).shape.size() != 2) continue;
            fan_in = static_cast<float>(params.spec(weight).shape[1]);  // nn.Linear: weight [out, in]
        }
        if (fan_in <= 0) continue;
        const float bound = 1.0f / std::sqrt(fan_in);
        for (size_t i = 0; i < spec.size; i++)
            w[i] = (2.0f * uniform_at(seed ^ 0xB1A5B1A5ull, spec.offset + i) - 1.0f) * bound;
    }
}

}  // namespace attend
