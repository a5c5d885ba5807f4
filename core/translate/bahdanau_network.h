// The GRU encoder + GRU decoder with additive attention (model/bahdanau_seq2seq.h) as a translator network:
// architecture "bahdanau", config BahdanauConfig. It decodes one sentence at a time and has one attention map per
// translation: 1 layer x 1 head of cross attention, no self-attention.
#pragma once
#include "model/bahdanau_seq2seq.h"
#include "translate/translator_network.h"

namespace attend {

class BahdanauNetwork final : public TranslatorNetwork {
public:
    static constexpr const char* kArchitecture = "bahdanau";

    BahdanauNetwork(const BahdanauConfig& config, bool with_grads) : model(config, with_grads) {}

    std::string architecture() const override { return kArchitecture; }
    nlohmann::json config_json() const override { return bahdanau_config_to_json(model.config); }
    std::string description() const override;
    ParameterStore& parameters() override { return model.params; }
    int max_source_tokens() const override { return model.config.max_source_tokens(); }
    int max_target_tokens() const override { return model.config.max_source_tokens(); }
    float dropout() const override { return model.config.dropout; }
    int cross_attention_layers() const override { return 1; }  // one additive attention
    std::unique_ptr<StepModel> search_model(const int* src, int S, int max_length) const override;
    // Additive attention has no query and key vectors: query_keys leaves neurons empty.
    TranslationAttention attention(const int* src, int S, const int* tgt_in, int T,
                                   bool query_keys = false) const override;

    BahdanauSeq2Seq model;
};

// network_architecture()'s entry: a BahdanauConfig from attend.config.
NetworkDeclaration declare_bahdanau_network(const nlohmann::json& config);

}  // namespace attend
