// The contract of a translator network (translate/translator_network.h), for each architecture on a tiny random
// model with d2l word pipelines: the factory builds it from its name and config, a model file of it loads into a
// network that reports its architecture, config, limits and parameters and saves back to the same bytes; the
// Translator's ids-level search is what translate() runs after tokenization.
#include <doctest/doctest.h>

#include "error.h"
#include "translate/bahdanau_network.h"
#include "translate/model_file.h"
#include "translate/omissions.h"
#include "tiny_words_model.h"
#include "translate/transformer_network.h"
#include "translate/translator.h"

#include <algorithm>
#include <cmath>
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

namespace {

// softmax over the keys row i may see (decoder self attention: 0..i) of q[l,h,i] . k[l,h,j] / sqrt(dim), against the
// map's row, for every layer, head and query of one kind.
void check_query_keys_give_weights(const QueryKeyVectors& v, const AttentionMaps& maps, bool causal) {
    REQUIRE(v.layers == maps.layers);
    REQUIRE(v.heads == maps.heads);
    REQUIRE(v.queries == maps.rows);
    REQUIRE(v.keys == maps.cols);
    REQUIRE(v.q.size() == size_t(v.layers) * v.heads * v.queries * v.dim);
    REQUIRE(v.k.size() == size_t(v.layers) * v.heads * v.keys * v.dim);
    const double scale = 1.0 / std::sqrt(double(v.dim));
    for (int l = 0; l < v.layers; l++)
        for (int h = 0; h < v.heads; h++)
            for (int i = 0; i < v.queries; i++) {
                const int visible = causal ? i + 1 : v.keys;
                std::vector<double> scores(v.keys);
                double max = -1e300;
                for (int j = 0; j < visible; j++) {
                    double dot = 0;
                    for (int d = 0; d < v.dim; d++)
                        dot += double(v.q[((size_t(l) * v.heads + h) * v.queries + i) * v.dim + d]) *
                               v.k[((size_t(l) * v.heads + h) * v.keys + j) * v.dim + d];
                    scores[j] = dot * scale;
                    max = std::max(max, scores[j]);
                }
                double sum = 0;
                for (int j = 0; j < visible; j++) sum += std::exp(scores[j] - max);
                for (int j = 0; j < v.keys; j++) {
                    CAPTURE(l);
                    CAPTURE(h);
                    CAPTURE(i);
                    CAPTURE(j);
                    const double want = j < visible ? std::exp(scores[j] - max) / sum : 0.0;
                    // float weights of a float computation: a few float epsilons of a value at most 1
                    CHECK(maps.data[((size_t(l) * maps.heads + h) * maps.rows + i) * maps.cols + j] ==
                          doctest::Approx(want).epsilon(1e-4).scale(1.0));
                }
            }
}

}  // namespace

TEST_CASE("translator: the query and key vectors it returns give its attention maps, for every kind") {
    TranslationOptions options;
    options.return_attention = true;
    options.return_neurons = true;
    const Translator transformer(tiny_model("transformer"));
    for (const char* text : {"Go.", "I lost.", "He's calm!"}) {
        CAPTURE(text);
        const TranslationResult r = transformer.translate(text, options);
        REQUIRE(r.neurons.cross.layers == 1);
        CHECK(r.neurons.cross.dim == 4);  // model_dim 8 over 2 heads
        check_query_keys_give_weights(r.neurons.encoder_self, r.encoder_self, false);
        check_query_keys_give_weights(r.neurons.decoder_self, r.decoder_self, true);
        check_query_keys_give_weights(r.neurons.cross, r.cross, false);
        // Neurons alone: the same vectors, no maps.
        TranslationOptions only = options;
        only.return_attention = false;
        const TranslationResult n = transformer.translate(text, only);
        CHECK(n.cross.layers == 0);
        CHECK(n.neurons.cross.q == r.neurons.cross.q);
        CHECK(n.neurons.decoder_self.k == r.neurons.decoder_self.k);
    }
    // Additive attention has no query and key vectors: the maps come, the neurons stay empty.
    const Translator gru(tiny_model("bahdanau"));
    const TranslationResult r = gru.translate("I lost.", options);
    CHECK(r.cross.layers == 1);
    CHECK(r.neurons.cross.layers == 0);
    CHECK(r.neurons.encoder_self.q.empty());
    // And without the option nothing is kept.
    CHECK(transformer.translate("I lost.").neurons.cross.layers == 0);
}

TEST_CASE("omissions: teacher-forced scores are the search's log-probabilities, batched or one source at a time") {
    for (const std::string architecture : kArchitectures) {
        CAPTURE(architecture);
        const TranslatorModel m = tiny_model(architecture);
        const Translator t = Translator::borrowing(m);
        std::vector<std::vector<int>> sources;
        std::vector<Hypothesis> hyps;
        for (const char* text : {"i lost .", "go .", "he's calm !"}) {
            sources.push_back(m.source_vocab.ids(t.source_tokens(text)));
            SearchOptions greedy;  // no repetition controls: the search's log-probabilities are the model's
            greedy.max_length = 8;
            hyps.push_back(t.translate_ids(sources.back(), greedy));
        }
        for (size_t i = 0; i < sources.size(); i++) {
            CAPTURE(i);
            // Every source scores hypothesis i; the batch pads the shorter sources.
            const std::vector<double> scores = translation_log_probs(*m.network, sources, hyps[i].tokens, m.bos_id);
            CHECK(scores[i] == doctest::Approx(hyps[i].log_prob).epsilon(1e-4));
            for (size_t s = 0; s < sources.size(); s++) {
                const double alone = translation_log_probs(*m.network, {sources[s]}, hyps[i].tokens, m.bos_id)[0];
                CHECK(scores[s] == doctest::Approx(alone).epsilon(1e-4));
            }
        }
        CHECK_THROWS_WITH_AS(translation_log_probs(*m.network, {{}}, hyps[0].tokens, m.bos_id),
                             ("translation scores: a source of 0 tokens (expected 1.." +
                              std::to_string(m.network->max_source_tokens()) + ")")
                                 .c_str(),
                             Error);
    }
}

TEST_CASE("omissions: a source word's gain is the score without it less the score with it; words as the pipeline splits") {
    TextPipeline bpe;  // moses+bpe: "@@" goes on into the next piece
    CHECK(source_word_starts({"The", "man", "&apos;s", "Hun@@", "d@@", "e", ".", "<eos>"}, bpe) ==
          std::vector<int>{0, 1, 2, 3, 6, 7});
    TextPipeline sp;
    sp.type = TextPipelineType::sentencepiece;
    CHECK(source_word_starts({"\xE2\x96\x81" "I", "\xE2\x96\x81" "li", "ke", "\xE2\x96\x81" "fish", "<eos>"}, sp) ==
          std::vector<int>{0, 1, 3, 4});
    CHECK(source_word_starts({"<eos>"}, sp) == std::vector<int>{0});
    // Chinese: one mark at the start, and each piece of Han characters a word.
    CHECK(source_word_starts({"\xE2\x96\x81" "\xE6\x88\x91", "\xE5\x96\x9C\xE6\xAC\xA2", "\xE9\xB1\xBC", "<eos>"}, sp) ==
          std::vector<int>{0, 1, 2, 3});

    const TranslatorModel m = tiny_model("transformer");
    const Translator t = Translator::borrowing(m);
    const std::vector<std::string> tokens = t.source_tokens("he's calm !");
    const std::vector<int> src = m.source_vocab.ids(tokens);
    const std::vector<int> target = t.translate_ids(src, SearchOptions{}).tokens;
    const std::vector<SourceWordGain> gains =
        source_word_gains(*m.network, tokens, src, target, m.bos_id, m.source_pipeline);
    REQUIRE(gains.size() == 2);  // "!" alone is not checked
    CHECK(gains[0].word == "he's");
    CHECK(gains[1].word == "calm");
    const double whole = translation_log_probs(*m.network, {src}, target, m.bos_id)[0];
    const std::vector<int> without_calm{src[0], src[2], src[3]};
    CHECK(gains[1].gain ==
          doctest::Approx(translation_log_probs(*m.network, {without_calm}, target, m.bos_id)[0] - whole).epsilon(1e-4));

    // Through translate() (its repetition controls may choose another translation): the words named are those
    // whose gain is above the threshold, and a warning names them; 0 checks nothing.
    TranslationOptions options;
    options.omission_gain = 0.0f;
    CHECK(t.translate("he's calm !", options).source_word_gains.empty());
    for (float threshold : {1e-6f, 0.5f, 2.0f}) {
        CAPTURE(threshold);
        options.omission_gain = threshold;
        const TranslationResult r = t.translate("he's calm !", options);
        REQUIRE(r.source_word_gains.size() == 2);
        std::vector<std::string> above;
        for (const SourceWordGain& g : r.source_word_gains)
            if (g.gain > threshold) above.push_back(g.word);
        CHECK(r.omitted_words == above);
        const bool warned = std::any_of(r.warnings.begin(), r.warnings.end(), [](const std::string& w) {
            return w.find("may have left out \"") != std::string::npos;
        });
        CHECK(warned == !above.empty());
    }
    options.omission_gain = kMaxOmissionGain;
    const TranslationResult r = t.translate("he's calm !", options);
    CHECK(r.source_word_gains.size() == 2);
    CHECK(r.omitted_words.empty());
    options.omission_gain = -1.0f;
    CHECK_THROWS_AS(t.translate("go .", options), Error);
}
