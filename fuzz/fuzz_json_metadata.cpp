// libFuzzer harness: any bytes as the JSON of one model-file metadata entry, read the way the loader reads it
// (translate/model_file.cpp): the first byte picks the entry (Transformer config, Bahdanau config, text
// pipeline, vocabulary), the rest is the JSON text.
// Contract under test: the text is accepted or refused with attend::Error or nlohmann::json::exception (the
// loader wraps both into an attend::Error naming the entry); an accepted value writes back to JSON that reads
// back to the same JSON (the writer and the reader agree), and an accepted config passes its own validate().
#include "error.h"
#include "model/bahdanau_seq2seq.h"
#include "model/transformer_config.h"
#include "text/text_pipeline.h"
#include "text/vocab.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>

namespace {

using namespace attend;
using json = nlohmann::json;

void require(bool ok) {
    if (!ok) std::abort();
}

void read(int which, const json& j) {
    switch (which) {
    case 0: {
        const TransformerConfig c = transformer_config_from_json(j);
        c.validate();
        const json back = transformer_config_to_json(c);
        require(transformer_config_to_json(transformer_config_from_json(back)) == back);
        break;
    }
    case 1: {
        const BahdanauConfig c = bahdanau_config_from_json(j);
        c.validate();
        const json back = bahdanau_config_to_json(c);
        require(bahdanau_config_to_json(bahdanau_config_from_json(back)) == back);
        break;
    }
    case 2: {
        const json back = j.get<TextPipeline>();
        require(json(back.get<TextPipeline>()) == back);
        break;
    }
    default: {
        const Vocab v = j.get<Vocab>();
        require(v.size() >= 1 && v.token(0) == Vocab::kUnk);
        const json back = v;
        require(json(back.get<Vocab>()) == back);
        break;
    }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    try {
        read(data[0] % 4, json::parse(data + 1, data + size));
    } catch (const Error&) {
    } catch (const json::exception&) {
    }
    return 0;
}
