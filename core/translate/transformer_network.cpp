#include "translate/transformer_network.h"

#include "translate/transformer_search_model.h"

#include <algorithm>
#include <cstdio>

namespace attend {
namespace {

// Gathers the [B=1, H, rows, cols] weights of every layer into maps.
template <typename Layers, typename Get>
AttentionMaps collect(const Layers& layers, Get weights_of, int heads, int rows, int cols) {
    AttentionMaps maps;
    maps.layers = static_cast<int>(layers.size());
    maps.heads = heads;
    maps.rows = rows;
    maps.cols = cols;
    const size_t per_layer = static_cast<size_t>(heads) * rows * cols;
    maps.data.resize(per_layer * maps.layers);
    for (int l = 0; l < maps.layers; l++) {
        const float* w = weights_of(layers[l]);
        if (!w) throw Error("transformer attention: layer " + std::to_string(l) + " kept no attention weights");
        std::copy_n(w, per_layer, maps.data.begin() + per_layer * l);
    }
    return maps;
}

// Gathers the [B=1, H, queries, D] query and [B=1, H, keys, D] key vectors of one kind of attention of every layer.
template <typename Layers, typename Get>
QueryKeyVectors collect_query_keys(const Layers& layers, Get attention_of, int heads, int dim, int queries, int keys) {
    QueryKeyVectors v;
    v.layers = static_cast<int>(layers.size());
    v.heads = heads;
    v.queries = queries;
    v.keys = keys;
    v.dim = dim;
    const size_t q_per_layer = size_t(heads) * queries * dim, k_per_layer = size_t(heads) * keys * dim;
    v.q.resize(q_per_layer * v.layers);
    v.k.resize(k_per_layer * v.layers);
    for (int l = 0; l < v.layers; l++) {
        const MultiHeadAttentionActivations& a = attention_of(layers[l]);
        std::copy_n(a.q, q_per_layer, v.q.begin() + q_per_layer * l);
        std::copy_n(a.k, k_per_layer, v.k.begin() + k_per_layer * l);
    }
    return v;
}

}  // namespace

std::string TransformerNetwork::description() const {
    const TransformerConfig& c = model.config;
    char line[256];
    std::snprintf(line, sizeof line, "Transformer %d+%d layers, C %d, %d heads, ffn %d, %s%s", c.encoder_layers,
                  c.decoder_layers, c.model_dim, c.heads, c.ffn_dim, c.pre_ln ? "pre-LN" : "post-LN",
                  c.tie_embeddings ? ", tied embeddings" : "");
    std::string d = line;
    if (c.attention_dropout) {
        std::snprintf(line, sizeof line, ", attention dropout %.2f", double(*c.attention_dropout));
        d += line;
    }
    return d;
}

std::unique_ptr<StepModel> TransformerNetwork::search_model(const int* src, int S, int max_length) const {
    return std::make_unique<TransformerSearchModel>(model, src, S, max_length);
}

std::unique_ptr<StepModel> TransformerNetwork::batch_search_model(const int* src, const int* src_valid_lens, int B,
                                                                  int S, int capacity) const {
    return std::make_unique<TransformerSearchModel>(model, src, src_valid_lens, B, S, capacity);
}

TranslationAttention TransformerNetwork::attention(const int* src, int S, const int* tgt_in, int T,
                                                   bool query_keys) const {
    // The search keeps no maps (a step reads only what the next one needs): one full forward keeps them all.
    const TransformerConfig& c = model.config;
    TransformerActivations acts;
    plan_transformer(acts, c, 1, S, T, /*keep_weights=*/true);
    transformer_forward(acts, model, src, nullptr, tgt_in, nullptr);
    TranslationAttention maps;
    maps.encoder_self = collect(acts.encoder, [](const EncoderBlockActivations& a) { return a.self_attn.weights; },
                                c.heads, S, S);
    maps.decoder_self = collect(acts.decoder, [](const DecoderBlockActivations& a) { return a.self_attn.weights; },
                                c.heads, T, T);
    maps.cross = collect(acts.decoder, [](const DecoderBlockActivations& a) { return a.cross_attn.weights; },
                         c.heads, T, S);
    if (query_keys) {
        // The forward keeps q and k split into heads for its backward; the search, which keeps no such copies, is
        // untouched.
        const int D = c.model_dim / c.heads;
        maps.neurons.encoder_self = collect_query_keys(
            acts.encoder, [](const EncoderBlockActivations& a) -> const auto& { return a.self_attn; }, c.heads, D, S, S);
        maps.neurons.decoder_self = collect_query_keys(
            acts.decoder, [](const DecoderBlockActivations& a) -> const auto& { return a.self_attn; }, c.heads, D, T, T);
        maps.neurons.cross = collect_query_keys(
            acts.decoder, [](const DecoderBlockActivations& a) -> const auto& { return a.cross_attn; }, c.heads, D, T, S);
    }
    return maps;
}

NetworkDeclaration declare_transformer_network(const nlohmann::json& json) {
    TransformerConfig c = transformer_config_from_json(json);
    c.validate();
    NetworkDeclaration d;
    d.src_vocab = c.src_vocab;
    d.tgt_vocab = c.tgt_vocab;
    d.layout = transformer_parameter_layout(c);
    d.dims = {{"model_dim", c.model_dim}, {"ffn_dim", c.ffn_dim}, {"src_vocab", c.src_vocab}, {"tgt_vocab", c.tgt_vocab}};
    d.allocate = [c](bool with_grads) { return std::make_unique<TransformerNetwork>(c, with_grads); };
    return d;
}

}  // namespace attend
