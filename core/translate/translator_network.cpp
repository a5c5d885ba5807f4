#include "translate/translator_network.h"

#include "translate/bahdanau_network.h"
#include "translate/transformer_network.h"

namespace attend {

std::unique_ptr<StepModel> TranslatorNetwork::batch_search_model(const int*, const int*, int, int, int) const {
    throw Error("search: " + architecture() + " models decode one sentence at a time");
}

const NetworkArchitecture& network_architecture(const std::string& name) {
    static const NetworkArchitecture architectures[] = {
        {TransformerNetwork::kArchitecture, declare_transformer_network},
        {BahdanauNetwork::kArchitecture, declare_bahdanau_network},
    };
    std::string known;
    for (const NetworkArchitecture& a : architectures) {
        if (name == a.name) return a;
        known += std::string(known.empty() ? "" : " or ") + "'" + a.name + "'";
    }
    throw Error("architecture '" + name + "' is not supported by the translator (expected " + known + ")");
}

}  // namespace attend
