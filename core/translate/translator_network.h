// One translator architecture behind one interface (CTranslate2's models/*.h): the Transformer
// (translate/transformer_network.h) and the GRU + Bahdanau seq2seq (translate/bahdanau_network.h). The model file,
// the Translator, the trainer and the CLI see only this; network_architecture() below is the one place that maps
// an architecture's name to its class.
#pragma once
#include "attend/translation.h"
#include "decode/step_model.h"
#include "error.h"
#include "model/parameter_store.h"

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace attend {

// The attention maps of one translation, as TranslationResult carries them.
struct TranslationAttention {
    AttentionMaps encoder_self, decoder_self, cross;
    AttentionNeurons neurons;  // with attention()'s query_keys, where the architecture has them
};

class TranslatorNetwork {
public:
    TranslatorNetwork() = default;
    TranslatorNetwork(const TranslatorNetwork&) = delete;
    TranslatorNetwork& operator=(const TranslatorNetwork&) = delete;
    virtual ~TranslatorNetwork() = default;

    // attend.architecture ("transformer", "bahdanau") and attend.config of the model file.
    virtual std::string architecture() const = 0;
    virtual nlohmann::json config_json() const = 0;
    // One line for people (`attend info`, the training log): kind, layers, dimensions.
    virtual std::string description() const = 0;

    // Every weight, under the tensor names of the model file.
    virtual ParameterStore& parameters() = 0;
    const ParameterStore& parameters() const { return const_cast<TranslatorNetwork*>(this)->parameters(); }

    // The longest source, in tokens with <eos>, and the most tokens a search may generate, <eos> included.
    virtual int max_source_tokens() const = 0;
    virtual int max_target_tokens() const = 0;
    // Dropout probability while training (the config's).
    virtual float dropout() const = 0;
    // The layers of the cross attention maps attention() returns.
    virtual int cross_attention_layers() const = 0;

    // Call after the weights change and before decoding: a network may keep a faster copy of what a decoding
    // step reads (the Transformer's half-float weights). Decoding is correct without it.
    virtual void prepare_decoding() {}

    // A StepModel for greedy and beam search over src [S] (ids with <eos>, 1 <= S <= max_source_tokens()), for
    // up to max_length generated tokens. It keeps its own state, so searches over one network may run side by
    // side (one per thread); the network must outlive it.
    virtual std::unique_ptr<StepModel> search_model(const int* src, int S, int max_length) const = 0;

    // Whether batch_search_model() is available: several sentences decoded in one step model.
    virtual bool decodes_batches() const { return false; }
    // For greedy_search_batch: src [B,S] padded, src_valid_lens [B]; row i decodes sentence i, for up to
    // `capacity` tokens. Throws attend::Error when the architecture decodes one sentence at a time.
    virtual std::unique_ptr<StepModel> batch_search_model(const int* src, const int* src_valid_lens, int B, int S,
                                                          int capacity) const;

    // Every attention map of one teacher-forced pass over a chosen translation: src [S] (with <eos>), tgt_in [T]
    // (<bos>, then the first T - 1 generated tokens). Maps are [layers, heads, rows, cols] with target rows T and
    // source columns S; kinds the architecture does not have stay empty (0 layers). query_keys: also the query and
    // key vectors of each dot-product attention (empty for additive attention, which has none).
    virtual TranslationAttention attention(const int* src, int S, const int* tgt_in, int T,
                                           bool query_keys = false) const = 0;
};

// A config field that tensor shapes are made of, to name the one a model file contradicts.
struct ConfigDim {
    std::string field;
    long long value;
};

// What the loader knows from attend.config before allocating anything, so that it checks a file's header against
// it first and a file cannot claim more memory than its own size implies.
struct NetworkDeclaration {
    int src_vocab = 0, tgt_vocab = 0;  // the vocabulary sizes the config implies
    ParameterStore layout;             // every parameter declared (names, shapes, file order), none allocated
    std::vector<ConfigDim> dims;       // the config fields of the tensor shapes
    // The network itself, every weight zero (or as its layers initialise them); with_grads for training.
    std::function<std::unique_ptr<TranslatorNetwork>(bool with_grads)> allocate;
};

// An architecture the model file can hold.
struct NetworkArchitecture {
    const char* name;  // attend.architecture
    // Parses and checks attend.config; attend::Error names the field.
    NetworkDeclaration (*declare)(const nlohmann::json& config);
};

// The architecture called `name`; throws attend::Error naming the ones there are.
const NetworkArchitecture& network_architecture(const std::string& name);

// The concrete network behind `network`, for code that runs only one architecture (the CUDA training step, the
// decoding benchmark, an architecture's own training code). Throws attend::Error saying what `user` needs and
// what it got.
template <class Network>
Network& network_as(TranslatorNetwork& network, const std::string& user) {
    if (auto* concrete = dynamic_cast<Network*>(&network)) return *concrete;
    throw Error(user + " needs a " + Network::kArchitecture + " model; this one is " + network.architecture());
}

template <class Network>
const Network& network_as(const TranslatorNetwork& network, const std::string& user) {
    return network_as<Network>(const_cast<TranslatorNetwork&>(network), user);
}

}  // namespace attend
