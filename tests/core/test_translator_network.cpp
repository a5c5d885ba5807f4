// The contract of a translator network (translate/translator_network.h), for each architecture on a tiny random
// model with d2l word pipelines: the factory builds it from its name and config, a model file of it loads into a
// network that reports its architecture, config, limits and parameters and saves back to the same bytes; the
// Translator's ids-level search is what translate() runs after tokenization.
#include <doctest/doctest.h>

#include "error.h"
#include "translate/bahdanau_network.h"
#include "translate/model_file.h"
#include "tiny_words_model.h"
#include "translate/transformer_network.h"
#include "translate/translator.h"

#include <cstring>
#include <string>
#include <vector>

using namespace attend;

namespace {

TranslatorModel words_model() { return attend_test::words_model({"go", ".", "i", "lost", "he's", "calm", "!"}, {"va", "!", "j'ai", "perdu", ".", "il", "est", "calme"}); }
using attend_test::fill;

// The config JSON of a tiny network of each architecture, as a model file's attend.config holds it.
nlohmann::json tiny_config(const std::string& architecture, const TranslatorModel& m) {
    const int src_vocab = static_cast<int>(m.source_vocab.size()), tgt_vocab = static_cast<int>(m.target_vocab.size());
    if (architecture == "transformer") {
        TransformerConfig c;
        c.model_dim = 8;
        c.heads = 2;
        c.encoder_layers = c.decoder_layers = 1;
        c.ffn_dim = 12;
        c.src_vocab = src_vocab;
        c.tgt_vocab = tgt_vocab;
        c.max_len = 16;
        c.dropout = 0.0f;
        c.pad_id = m.pad_id;
        return transformer_config_to_json(c);
    }
    BahdanauConfig c;
    c.src_vocab = src_vocab;
    c.tgt_vocab = tgt_vocab;
    c.embed_size = 4;
    c.num_hiddens = 6;
    c.num_layers = 1;
    c.max_len = 12;
    c.pad_id = m.pad_id;
    return bahdanau_config_to_json(c);
}

TranslatorModel tiny_model(const std::string& architecture) {
    TranslatorModel m = words_model();
    m.network = network_architecture(architecture).declare(tiny_config(architecture, m)).allocate(/*with_grads=*/false);
    fill(m.parameters(), 7);
    return m;
}

const char* const kArchitectures[] = {"transformer", "bahdanau"};

}  // namespace

TEST_CASE("translator network: a model file of each architecture loads into a network that reports what it is") {
    for (const std::string architecture : kArchitectures) {
        CAPTURE(architecture);
        const TranslatorModel m = tiny_model(architecture);
        const std::vector<uint8_t> bytes = save_translator_model(m, DType::F32);
        const TranslatorModel back = load_translator_model_bytes(bytes, "tiny.safetensors");
        REQUIRE(back.network);
        const TranslatorNetwork& net = *back.network;
        CHECK(net.architecture() == architecture);
        CHECK(net.config_json() == tiny_config(architecture, m));
        CHECK(net.description().find(architecture == "transformer" ? "Transformer 1+1 layers, C 8, 2 heads"
                                                                   : "GRU + Bahdanau attention, 1 layers") == 0);
        const int limit = architecture == "transformer" ? 16 : 12;
        CHECK(net.max_source_tokens() == limit);
        CHECK(net.max_target_tokens() == limit);

        const ParameterStore& p = net.parameters();
        const ParameterStore& q = m.network->parameters();
        REQUIRE(p.size() == q.size());
        REQUIRE(p.specs().size() == q.specs().size());
        for (size_t i = 0; i < p.specs().size(); i++) {
            CHECK(p.specs()[i].name == q.specs()[i].name);
            CHECK(p.specs()[i].shape == q.specs()[i].shape);
        }
        CHECK(std::memcmp(p.values(), q.values(), p.size() * sizeof(float)) == 0);
        CHECK(parameter_count(back) == p.size());
        CHECK(save_translator_model(back, DType::F32) == bytes);  // and back to the same file
    }
}

TEST_CASE("translator network: the factory knows each architecture by name and refuses others by name") {
    for (const std::string architecture : kArchitectures) CHECK(network_architecture(architecture).name == architecture);
    CHECK_THROWS_WITH_AS(network_architecture("lstm"),
                         "architecture 'lstm' is not supported by the translator (expected 'transformer' or 'bahdanau')",
                         Error);
    const TranslatorModel gru = tiny_model("bahdanau");
    CHECK_THROWS_WITH_AS(network_as<TransformerNetwork>(*gru.network, "the decoding benchmark"),
                         "the decoding benchmark needs a transformer model; this one is bahdanau", Error);
    CHECK(&network_as<BahdanauNetwork>(*gru.network, "test").model.params == &gru.network->parameters());
}

TEST_CASE("translator network: batched search where the architecture has it, a clear error where not") {
    const TranslatorModel transformer = tiny_model("transformer"), gru = tiny_model("bahdanau");
    const std::vector<int> src{4, 5, transformer.eos_id, 6, transformer.eos_id, transformer.pad_id}, valid{3, 2};
    CHECK(transformer.network->decodes_batches());
    CHECK(transformer.network->batch_search_model(src.data(), valid.data(), 2, 3, 8)->vocab_size() ==
          static_cast<int>(transformer.target_vocab.size()));
    CHECK_FALSE(gru.network->decodes_batches());
    CHECK_THROWS_WITH_AS(gru.network->batch_search_model(src.data(), valid.data(), 2, 3, 8),
                         "search: bahdanau models decode one sentence at a time", Error);
}

TEST_CASE("translator: translate_ids gives translate()'s tokens for the same sentence, greedy and beam") {
    for (const std::string architecture : kArchitectures) {
        CAPTURE(architecture);
        const TranslatorModel m = tiny_model(architecture);
        const Translator owned(load_translator_model_bytes(save_translator_model(m, DType::F32)));
        const Translator borrowed = Translator::borrowing(m);
        for (int beam : {1, 3}) {
            TranslationOptions options;
            options.beam_size = beam;
            for (const char* text : {"Go.", "I lost.", "He's calm!", "go go go go go go go"}) {
                CAPTURE(text);
                const TranslationResult r = owned.translate(text, options);
                const std::vector<std::string> tokens = owned.source_tokens(text);
                const std::vector<int> ids = m.source_vocab.ids(tokens);
                const SearchOptions search = owned.search_options(options, tokens, text);
                const Hypothesis h = owned.translate_ids(ids, search);
                CHECK(h.tokens == r.target_ids);
                CHECK(h.log_prob == r.log_prob);
                CHECK(h.finished == r.finished);
                CHECK(borrowed.translate_ids(ids, search).tokens == r.target_ids);
                CHECK(borrowed.translate(text, options).target_ids == r.target_ids);
            }
        }
        SearchOptions greedy;
        CHECK_THROWS_WITH_AS(owned.translate_ids({}, greedy), "search: the source sentence is empty", Error);
        CHECK_THROWS_WITH_AS(owned.translate_ids(std::vector<int>(owned.max_source_tokens() + 1, 4), greedy),
                             doctest::Contains("this model accepts at most"), Error);
        CHECK_THROWS_WITH_AS(owned.translate_ids({4, 99, m.eos_id}, greedy),
                             doctest::Contains("source id 99 is outside the source vocabulary"), Error);
    }
}
