// The GRU + Bahdanau translator (architecture "bahdanau") in the model file, the Translator and the searches, on a
// small randomly initialised model with d2l word pipelines: save -> load gives the same outputs, strict loading
// names what is wrong, beam size 1 is greedy, and the cross attention is the Bahdanau weights (1 layer x 1 head).
#include <doctest/doctest.h>

#include "decode/beam_search.h"
#include "decode/greedy_search.h"
#include "error.h"
#include "train/trainable_model.h"
#include "translate/bahdanau_network.h"
#include "translate/bahdanau_search_model.h"
#include "translate/translator.h"

#include <cmath>
#include <cstring>

using namespace attend;

namespace {

const BahdanauSeq2Seq& bahdanau_of(const TranslatorModel& m) { return network_as<BahdanauNetwork>(*m.network, "test").model; }

TranslatorModel small_rnn_model(int num_steps, uint64_t seed = 5) {
    TranslatorModel m;
    m.source_pipeline = d2l_words_pipeline(Lang::en);
    m.target_pipeline = d2l_words_pipeline(Lang::fr);
    const std::vector<std::string> reserved{"<pad>", "<bos>", "<eos>"};
    m.source_vocab = Vocab({{"go", ".", "i", "lost", "i'm", "home", "he's", "calm", "!"}}, 0, reserved);
    m.target_vocab = Vocab({{"va", "!", "j'ai", "perdu", ".", "je", "suis", "chez", "moi", "il", "est", "calme"}}, 0, reserved);
    m.pad_id = m.target_vocab["<pad>"];
    m.bos_id = m.target_vocab["<bos>"];
    m.eos_id = m.target_vocab["<eos>"];
    BahdanauConfig c;
    c.src_vocab = static_cast<int>(m.source_vocab.size());
    c.tgt_vocab = static_cast<int>(m.target_vocab.size());
    c.embed_size = 8;
    c.num_hiddens = 16;
    c.num_layers = 2;
    c.dropout = 0.1f;
    c.num_steps = num_steps;
    c.max_len = 24;
    c.pad_id = m.pad_id;
    m.network = std::make_unique<BahdanauNetwork>(c, /*with_grads=*/false);
    initialise_parameters(m, "seeds", seed);
    return m;
}

std::vector<uint8_t> rewrite(const TranslatorModel& m, const std::string& key, const std::string& value,
                             const std::string& drop_tensor = "", const std::string& reshape_tensor = "") {
    SafeTensors file = SafeTensors::from_bytes(save_translator_model(m, DType::F32));
    SafeTensorsWriter w;
    for (const auto& [k, v] : file.metadata()) w.set_metadata(k, k == key ? value : v);
    for (const std::string& name : file.names()) {
        if (name == drop_tensor) continue;
        const TensorInfo& info = file.info(name);
        std::vector<int64_t> shape = info.shape;
        if (name == reshape_tensor) shape = {shape[0] * shape[1]};
        w.add_raw(name, info.dtype, shape, file.raw(name), info.end - info.begin);
    }
    return w.to_bytes();
}

std::string load_error(std::vector<uint8_t> bytes) {
    try {
        load_translator_model_bytes(std::move(bytes), "rnn.safetensors");
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("bahdanau model file: save -> load keeps every tensor bit for bit and translates identically") {
    for (int num_steps : {10, 0}) {
        TranslatorModel m = small_rnn_model(num_steps);
        const std::vector<uint8_t> bytes = save_translator_model(m, DType::F32);
        SafeTensors file = SafeTensors::from_bytes(bytes);
        CHECK(file.metadata().at("attend.architecture") == "bahdanau");
        CHECK(file.contains("encoder.embedding.weight"));
        CHECK(file.contains("encoder.rnn.weight_ih_l1"));
        CHECK(file.contains("decoder.attention.W_q.weight"));
        CHECK(file.contains("decoder.dense.bias"));
        CHECK(nlohmann::json::parse(file.metadata().at("attend.source_pipeline"))["type"] == "d2l-words");

        TranslatorModel back = load_translator_model_bytes(bytes, "rnn.safetensors");
        REQUIRE(back.network);
        CHECK(dynamic_cast<const BahdanauNetwork*>(back.network.get()) != nullptr);
        CHECK(back.architecture() == "bahdanau");
        CHECK(bahdanau_of(back).config.num_steps == num_steps);
        CHECK(back.source_pipeline.type == TextPipelineType::d2l_words);
        REQUIRE(back.parameters().size() == m.parameters().size());
        CHECK(std::memcmp(back.parameters().values(), m.parameters().values(), m.parameters().size() * sizeof(float)) == 0);

        const Translator a(std::move(m)), b(std::move(back));
        TranslationOptions opt;
        opt.return_attention = true;
        for (int beam : {1, 3}) {
            opt.beam_size = beam;
            for (const char* text : {"Go.", "I lost.", "I'm home.", "he's calm !"}) {
                TranslationResult ra = a.translate(text, opt), rb = b.translate(text, opt);
                CHECK(ra.target_ids == rb.target_ids);
                CHECK(ra.text == rb.text);
                CHECK(ra.log_prob == rb.log_prob);
                CHECK(ra.cross.data == rb.cross.data);
            }
        }
        CHECK(a.info()["architecture"] == "bahdanau");
        CHECK(a.info()["config"]["num_hiddens"] == 16);
    }
}

TEST_CASE("bahdanau model file: F16 and I8 stay close; malformed files fail naming the problem") {
    TranslatorModel m = small_rnn_model(10);
    TranslatorModel f16 = load_translator_model_bytes(save_translator_model(m, DType::F16), "f16");
    TranslatorModel i8 = load_translator_model_bytes(save_translator_model(m, DType::I8), "i8");
    const float* ref = m.parameters().values();
    double max_f16 = 0, max_i8 = 0;
    for (size_t i = 0; i < m.parameters().size(); i++) {
        max_f16 = std::max(max_f16, double(std::fabs(f16.parameters().values()[i] - ref[i])));
        max_i8 = std::max(max_i8, double(std::fabs(i8.parameters().values()[i] - ref[i])));
    }
    CHECK(max_f16 < 2e-3);  // |w| < 4 (N(0, 1) embeddings): F16 spacing 2^-9 near 4, half of it
    CHECK(max_i8 < 0.02);   // per-row scale amax / 127, half a step; |w| < 4
    CHECK(max_i8 > 0);

    const nlohmann::json config = bahdanau_config_to_json(bahdanau_of(m).config);
    CHECK(load_error(rewrite(m, "attend.architecture", "lstm")).find("architecture 'lstm' is not supported") != std::string::npos);
    CHECK(load_error(rewrite(m, "attend.architecture", "transformer")).find("contradicts attend.architecture") != std::string::npos);
    nlohmann::json bad = config;
    bad["num_hidden"] = 16;
    CHECK(load_error(rewrite(m, "attend.config", bad.dump())).find("unknown field 'num_hidden'") != std::string::npos);
    bad = config;
    bad["num_hiddens"] = "16";
    CHECK(load_error(rewrite(m, "attend.config", bad.dump())).find("'num_hiddens' has the wrong type") != std::string::npos);
    bad = config;
    bad["num_hiddens"] = 32;  // every GRU tensor now has the wrong shape
    CHECK(load_error(rewrite(m, "attend.config", bad.dump())).find("has shape") != std::string::npos);
    bad = config;
    bad["tgt_vocab"] = 7;
    CHECK(load_error(rewrite(m, "attend.config", bad.dump())).find("target vocabulary has") != std::string::npos);
    // "bidirectional" is written only when true: a unidirectional file reads as in builds that predate it, and a
    // file without the field loads as unidirectional.
    CHECK_FALSE(config.contains("bidirectional"));
    CHECK_FALSE(bahdanau_config_from_json(config).bidirectional);
    bad = config;
    bad["bidirectional"] = "yes";
    CHECK(load_error(rewrite(m, "attend.config", bad.dump())).find("'bidirectional' has the wrong type") != std::string::npos);
    bad = config;
    bad["bidirectional"] = true;  // a unidirectional file lacks the reverse GRU
    CHECK(load_error(rewrite(m, "attend.config", bad.dump())).find("'encoder.rnn.weight_ih_l0_reverse' is missing") !=
          std::string::npos);
    bad = config;
    bad["num_layers"] = 0;
    CHECK(load_error(rewrite(m, "attend.config", bad.dump())).find("num_layers is 0") != std::string::npos);
    CHECK(load_error(rewrite(m, "attend.source_pipeline", R"({"type": "spm", "lang": "en"})")).find("unknown type 'spm'") !=
          std::string::npos);
    CHECK(load_error(rewrite(m, "", "", "decoder.rnn.bias_hh_l1")).find("'decoder.rnn.bias_hh_l1' is missing") != std::string::npos);
    CHECK(load_error(rewrite(m, "", "", "", "decoder.attention.W_k.weight")).find("W_k.weight") != std::string::npos);

    TranslatorModel empty;
    CHECK_THROWS_WITH(empty.architecture(), doctest::Contains("holds no network"));
    CHECK_THROWS_WITH(Translator(std::move(empty)), doctest::Contains("holds no network"));
}

TEST_CASE("bahdanau search: beam size 1 equals greedy; sources longer than num_steps are cut to them") {
    TranslatorModel m = small_rnn_model(10, 9);
    const BahdanauSeq2Seq& model = bahdanau_of(m);
    SearchOptions greedy;
    greedy.bos_id = m.bos_id;
    greedy.eos_id = m.eos_id;
    greedy.max_length = 10;
    int compared = 0;
    for (const std::vector<std::string>& words :
         std::vector<std::vector<std::string>>{{"go", "."}, {"i", "lost", "."}, {"i'm", "home", "."}, {"he's", "calm", "!"},
                                               {"go", "home", "i", "lost", "calm", "."}}) {
        std::vector<int> src = m.source_vocab.ids(words);
        src.push_back(m.eos_id);
        BahdanauSearchModel a(model, src.data(), static_cast<int>(src.size()));
        BahdanauSearchModel b(model, src.data(), static_cast<int>(src.size()));
        Hypothesis g = greedy_search(a, greedy);
        SearchOptions beam1 = greedy;
        beam1.beam_size = 1;
        Hypothesis h = beam_search(b, beam1).front();
        CHECK(g.tokens == h.tokens);
        CHECK(g.log_prob == doctest::Approx(h.log_prob).epsilon(1e-6));
        CHECK_FALSE(g.tokens.empty());
        compared++;
    }
    CHECK(compared == 5);

    std::vector<int> long_source(11, m.source_vocab["go"]);
    CHECK_THROWS_WITH(BahdanauSearchModel(model, long_source.data(), 11), doctest::Contains("at most 10"));
    Translator t(std::move(m));
    CHECK_THROWS_WITH(t.source_tokens("go go go go go go go go go go ."), doctest::Contains("at most 10 tokens"));
    const TranslationResult cut = t.translate("go go go go go go go go go go .");
    CHECK(cut.source_tokens.size() == 10);
    REQUIRE_FALSE(cut.warnings.empty());
    CHECK(cut.warnings[0].find("accepts at most 10: only the first 9 were translated") != std::string::npos);
    CHECK(t.max_source_tokens() == 10);
}

TEST_CASE("bahdanau translator: the cross attention is the additive attention, 1 layer x 1 head, rows sum to 1") {
    Translator t(small_rnn_model(10, 13));
    TranslationOptions opt;
    opt.beam_size = 1;
    opt.return_attention = true;
    TranslationResult r = t.translate("I'm home.", opt);
    CHECK(r.source_tokens == std::vector<std::string>{"i'm", "home", ".", "<eos>"});
    CHECK(r.cross.layers == 1);
    CHECK(r.cross.heads == 1);
    CHECK(r.cross.rows == static_cast<int>(r.target_ids.size()));
    CHECK(r.cross.cols == 4);  // source tokens with <eos>, not the padding to num_steps
    REQUIRE(r.cross.data.size() == size_t(r.cross.rows) * r.cross.cols);
    for (int i = 0; i < r.cross.rows; i++) {
        double sum = 0;
        for (int j = 0; j < r.cross.cols; j++) sum += r.cross.data[size_t(i) * r.cross.cols + j];
        CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
    }
    CHECK(r.encoder_self.layers == 0);
    CHECK(r.decoder_self.layers == 0);
    CHECK(r.encoder_self.data.empty());
    CHECK(r.decoder_self.data.empty());
    CHECK(static_cast<int>(r.target_ids.size()) <= 10);  // at most num_steps generated

    // The search's own per-step weights for the greedy path equal the teacher-forced pass.
    std::vector<int> src = t.model().source_vocab.ids(r.source_tokens);
    BahdanauSearchModel search(bahdanau_of(t.model()), src.data(), static_cast<int>(src.size()));
    std::vector<float> logits(t.model().target_vocab.size());
    int last = t.model().bos_id;
    for (int i = 0; i < r.cross.rows; i++) {
        search.step(logits.data(), &last, 1);
        for (int j = 0; j < r.cross.cols; j++)
            CHECK(search.last_attention()[j] == doctest::Approx(r.cross.data[size_t(i) * r.cross.cols + j]).epsilon(1e-5));
        for (int j = r.cross.cols; j < 10; j++) CHECK(search.last_attention()[j] == 0.0f);
        last = r.target_ids[i];
    }
}
