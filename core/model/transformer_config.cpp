#include "model/transformer_config.h"

#include "error.h"
#include "model/config_checks.h"

#include <algorithm>

namespace attend {

void TransformerConfig::validate() const {
    const char* what = "transformer config";
    check_config_range(what, "model_dim", model_dim, 1, kMaxModelWidth);
    check_config_range(what, "heads", heads, 1, kMaxHeads);
    check_config_range(what, "encoder_layers", encoder_layers, 0, kMaxLayers);
    check_config_range(what, "decoder_layers", decoder_layers, 0, kMaxLayers);
    check_config_range(what, "ffn_dim", ffn_dim, 1, kMaxFfnDim);
    check_config_range(what, "src_vocab", src_vocab, 1, kMaxVocab);
    check_config_range(what, "tgt_vocab", tgt_vocab, 1, kMaxVocab);
    check_config_range(what, "max_len", max_len, 1, kMaxSequence);
    if (model_dim % heads != 0)
        throw Error("transformer config: model_dim " + std::to_string(model_dim) + " is not a multiple of heads " +
                    std::to_string(heads));
    check_config_fraction(what, "dropout", dropout);
    if (attention_dropout) check_config_fraction(what, "attention_dropout", *attention_dropout);
    if (tie_embeddings && src_vocab != tgt_vocab)
        throw Error("transformer config: tie_embeddings needs one joint vocabulary, got src_vocab " +
                    std::to_string(src_vocab) + " and tgt_vocab " + std::to_string(tgt_vocab));
    if (pad_id < -1 || pad_id >= std::min(src_vocab, tgt_vocab))
        throw Error("transformer config: pad_id " + std::to_string(pad_id) + " is outside the vocabularies");
    if (!(layernorm_eps > 0.0f && layernorm_eps <= 1.0f))
        throw Error("transformer config: layernorm_eps is " + std::to_string(layernorm_eps) + ", expected in (0, 1]");
}

nlohmann::json transformer_config_to_json(const TransformerConfig& c) {
    nlohmann::json j = {{"architecture", "transformer"},
                        {"model_dim", c.model_dim},
                        {"heads", c.heads},
                        {"encoder_layers", c.encoder_layers},
                        {"decoder_layers", c.decoder_layers},
                        {"ffn_dim", c.ffn_dim},
                        {"src_vocab", c.src_vocab},
                        {"tgt_vocab", c.tgt_vocab},
                        {"max_len", c.max_len},
                        {"dropout", c.dropout},
                        {"tie_embeddings", c.tie_embeddings},
                        {"pre_ln", c.pre_ln},
                        {"final_norm", c.final_norm},
                        {"bias", c.bias},
                        {"activation", c.activation == Activation::GELU ? "gelu" : "relu"},
                        {"layernorm_eps", c.layernorm_eps},
                        {"pad_id", c.pad_id}};
    if (c.attention_dropout) j["attention_dropout"] = *c.attention_dropout;
    return j;
}

TransformerConfig transformer_config_from_json(const nlohmann::json& j) {
    if (!j.is_object()) throw Error("transformer config: expected a JSON object, got " + std::string(j.type_name()));
    TransformerConfig c;
    auto get = [&](const char* key, auto& field) { config_field("transformer config", j, key, field); };
    if (j.contains("architecture") && j["architecture"] != "transformer")
        throw Error("transformer config: architecture is " + j["architecture"].dump() + ", expected \"transformer\"");
    get("model_dim", c.model_dim);
    get("heads", c.heads);
    get("encoder_layers", c.encoder_layers);
    get("decoder_layers", c.decoder_layers);
    get("ffn_dim", c.ffn_dim);
    get("src_vocab", c.src_vocab);
    get("tgt_vocab", c.tgt_vocab);
    get("max_len", c.max_len);
    get("dropout", c.dropout);
    if (j.contains("attention_dropout")) {
        float p = 0.0f;
        get("attention_dropout", p);
        c.attention_dropout = p;
    }
    get("tie_embeddings", c.tie_embeddings);
    get("pre_ln", c.pre_ln);
    get("final_norm", c.final_norm);
    get("bias", c.bias);
    get("layernorm_eps", c.layernorm_eps);
    get("pad_id", c.pad_id);
    std::string activation = "relu";
    get("activation", activation);
    if (activation == "relu")
        c.activation = Activation::ReLU;
    else if (activation == "gelu")
        c.activation = Activation::GELU;
    else
        throw Error("transformer config: activation '" + activation + "', expected \"relu\" or \"gelu\"");
    c.validate();
    return c;
}

}  // namespace attend
