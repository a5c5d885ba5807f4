// The Transformer (model/transformer.h) as a translator network: architecture "transformer", config
// TransformerConfig (model/transformer_config.h). It decodes batches of sentences, keeps half-float copies of the
// decoding weights when they are exact (transformer_prepare_decoding), and has all three kinds of attention map.
#pragma once
#include "model/transformer.h"
#include "translate/translator_network.h"

namespace attend {

class TransformerNetwork final : public TranslatorNetwork {
public:
    static constexpr const char* kArchitecture = "transformer";

    TransformerNetwork(const TransformerConfig& config, bool with_grads) : model(config, with_grads) {}

    std::string architecture() const override { return kArchitecture; }
    nlohmann::json config_json() const override { return transformer_config_to_json(model.config); }
    std::string description() const override;
    ParameterStore& parameters() override { return model.params; }
    int max_source_tokens() const override { return model.config.max_len; }
    int max_target_tokens() const override { return model.config.max_len; }
    float dropout() const override { return model.config.dropout; }
    int cross_attention_layers() const override { return model.config.decoder_layers; }
    void prepare_decoding() override { transformer_prepare_decoding(model); }
    std::unique_ptr<StepModel> search_model(const int* src, int S, int max_length) const override;
    bool decodes_batches() const override { return true; }
    std::unique_ptr<StepModel> batch_search_model(const int* src, const int* src_valid_lens, int B, int S,
                                                  int capacity) const override;
    TranslationAttention attention(const int* src, int S, const int* tgt_in, int T,
                                   bool query_keys = false) const override;

    Transformer model;
};

// network_architecture()'s entry: a TransformerConfig from attend.config.
NetworkDeclaration declare_transformer_network(const nlohmann::json& config);

}  // namespace attend
