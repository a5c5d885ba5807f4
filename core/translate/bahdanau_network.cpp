#include "translate/bahdanau_network.h"

#include "translate/bahdanau_search_model.h"

#include <cstdio>

namespace attend {

std::string BahdanauNetwork::description() const {
    const BahdanauConfig& c = model.config;
    char line[256];
    std::snprintf(line, sizeof line, "GRU + Bahdanau attention, %d layers, embed %d, hidden %d%s%s", c.num_layers,
                  c.embed_size, c.num_hiddens, c.bidirectional ? ", bidirectional encoder" : "",
                  c.num_steps > 0 ? (", sources padded to " + std::to_string(c.num_steps)).c_str() : "");
    return line;
}

// The search ends at max_length by itself; the GRU keeps no cache that the length would size.
std::unique_ptr<StepModel> BahdanauNetwork::search_model(const int* src, int S, int) const {
    return std::make_unique<BahdanauSearchModel>(model, src, S);
}

TranslationAttention BahdanauNetwork::attention(const int* src, int S, const int* tgt_in, int T, bool) const {
    TranslationAttention maps;
    bahdanau_cross_attention(maps.cross.data, model, src, S, tgt_in, T);
    maps.cross.layers = maps.cross.heads = 1;
    maps.cross.rows = T;
    maps.cross.cols = S;
    return maps;
}

NetworkDeclaration declare_bahdanau_network(const nlohmann::json& json) {
    const BahdanauConfig c = bahdanau_config_from_json(json);  // validated
    NetworkDeclaration d;
    d.src_vocab = c.src_vocab;
    d.tgt_vocab = c.tgt_vocab;
    d.layout = bahdanau_parameter_layout(c);
    d.dims = {{"embed_size", c.embed_size}, {"num_hiddens", c.num_hiddens}, {"3 x num_hiddens", 3LL * c.num_hiddens},
              {"num_hiddens + embed_size", (long long)c.num_hiddens + c.embed_size}, {"src_vocab", c.src_vocab},
              {"tgt_vocab", c.tgt_vocab}};
    d.allocate = [c](bool with_grads) { return std::make_unique<BahdanauNetwork>(c, with_grads); };
    return d;
}

}  // namespace attend
