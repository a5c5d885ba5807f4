// The tiny random translators the model-file tests build: d2l word pipelines (en -> fr) over a few words, and
// weights from a fixed LCG in [-0.5, 0.5).
#pragma once
#include "translate/model_file.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attend_test {

inline void fill(attend::ParameterStore& params, uint64_t seed) {
    uint64_t s = seed;
    float* w = params.values();
    for (size_t i = 0; i < params.size(); i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        w[i] = (static_cast<float>((s >> 40) * (1.0 / 16777216.0)) * 2.0f - 1.0f) * 0.5f;
    }
}

// A model without a network yet: pipelines, vocabularies (the reserved tokens first) and special ids.
inline attend::TranslatorModel words_model(const std::vector<std::string>& source_words,
                                           const std::vector<std::string>& target_words) {
    using namespace attend;
    TranslatorModel m;
    m.source_pipeline = d2l_words_pipeline(Lang::en);
    m.target_pipeline = d2l_words_pipeline(Lang::fr);
    const std::vector<std::string> reserved{"<pad>", "<bos>", "<eos>"};
    m.source_vocab = Vocab({source_words}, 0, reserved);
    m.target_vocab = Vocab({target_words}, 0, reserved);
    m.pad_id = m.target_vocab["<pad>"];
    m.bos_id = m.target_vocab["<bos>"];
    m.eos_id = m.target_vocab["<eos>"];
    return m;
}

}  // namespace attend_test
