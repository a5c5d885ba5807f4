// The translator model file and the Translator on a small, randomly initialised Transformer whose tokenizer,
// BPE and vocabularies are built from real Multi30K text: save/load in every dtype, strict loading errors,
// translation errors, attention maps, and batch order.
#include <doctest/doctest.h>

#include "data/data_dir.h"
#include "data/multi30k.h"
#include "data/nonbreaking_prefix_file.h"
#include "error.h"
#include "translate/clause_join.h"
#include "translate/copy_through.h"
#include "translate/transformer_network.h"
#include "translate/translator.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <regex>
#include <sstream>

using namespace attend;

namespace {

TextPipeline pipeline_from(const std::vector<std::string>& tok_lines, Lang lang, int merges) {
    TextPipeline p;
    p.lang = lang;
    p.prefixes = load_nonbreaking_prefixes(default_data_dir(), lang);
    p.bpe = Bpe::learn(count_words(tok_lines), merges);
    return p;
}

Vocab vocab_from(const std::vector<std::string>& tok_lines, const Bpe& bpe) {
    std::vector<std::vector<std::string>> lines;
    for (const std::string& line : bpe.apply_lines(tok_lines)) {
        std::vector<std::string> tokens;
        std::istringstream in(line);
        for (std::string t; in >> t;) tokens.push_back(t);
        lines.push_back(tokens);
    }
    return Vocab(lines, 1, {"<pad>", "<bos>", "<eos>"});
}

void randomize(Transformer& model, uint64_t seed, float a) {
    uint64_t s = seed;
    float* w = model.params.values();
    for (size_t i = 0; i < model.params.size(); i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        w[i] = (static_cast<float>((s >> 40) * (1.0 / 16777216.0)) * 2.0f - 1.0f) * a;
    }
}

// Built once: learning BPE on 300 sentences takes milliseconds.
const TranslatorModel& small_model() {
    static TranslatorModel m = [] {
        ParallelText text = load_multi30k(default_data_dir(), "val", Lang::en, Lang::de, TextForm::tok);
        std::vector<std::string> en(text.source.begin(), text.source.begin() + 300);
        std::vector<std::string> de(text.target.begin(), text.target.begin() + 300);
        TranslatorModel model;
        model.source_pipeline = pipeline_from(en, Lang::en, 200);
        model.target_pipeline = pipeline_from(de, Lang::de, 200);
        model.source_vocab = vocab_from(en, *model.source_pipeline.bpe);
        model.target_vocab = vocab_from(de, *model.target_pipeline.bpe);
        TransformerConfig c;
        c.model_dim = 32;
        c.heads = 4;
        c.encoder_layers = 2;
        c.decoder_layers = 2;
        c.ffn_dim = 48;
        c.src_vocab = static_cast<int>(model.source_vocab.size());
        c.tgt_vocab = static_cast<int>(model.target_vocab.size());
        c.max_len = 40;
        c.dropout = 0.0f;
        auto network = std::make_unique<TransformerNetwork>(c, false);
        randomize(network->model, 11, 0.3f);
        model.network = std::move(network);
        model.pad_id = model.target_vocab["<pad>"];
        model.bos_id = model.target_vocab["<bos>"];
        model.eos_id = model.target_vocab["<eos>"];
        model.card = {{"note", "random weights, for tests"}};
        return model;
    }();
    return m;
}

const Transformer& transformer_of(const TranslatorModel& m) {
    return network_as<TransformerNetwork>(*m.network, "test").model;
}

TranslatorModel copy_of(const TranslatorModel& m) {
    return load_translator_model_bytes(save_translator_model(m, DType::F32), "copy");
}

// Rewrites one metadata entry of a saved model (the JSON header is rebuilt with the same tensors).
std::vector<uint8_t> with_metadata(const TranslatorModel& m, const std::string& key, const std::string& value) {
    SafeTensors file = SafeTensors::from_bytes(save_translator_model(m, DType::F32));
    SafeTensorsWriter w;
    for (const auto& [k, v] : file.metadata()) w.set_metadata(k, k == key ? value : v);
    if (!file.metadata().count(key)) w.set_metadata(key, value);
    for (const std::string& name : file.names()) {
        const TensorInfo& info = file.info(name);
        w.add_raw(name, info.dtype, info.shape, file.raw(name), info.end - info.begin);
    }
    return w.to_bytes();
}

std::string load_error(std::vector<uint8_t> bytes) {
    try {
        load_translator_model_bytes(std::move(bytes), "model.safetensors");
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("a model saved as F32 loads back bit for bit and translates identically") {
    const TranslatorModel& m = small_model();
    std::vector<uint8_t> bytes = save_translator_model(m, DType::F32);
    TranslatorModel back = load_translator_model_bytes(bytes, "f32");
    REQUIRE(transformer_of(back).params.size() == transformer_of(m).params.size());
    CHECK(std::memcmp(transformer_of(back).params.values(), transformer_of(m).params.values(),
                      transformer_of(m).params.size() * sizeof(float)) == 0);
    CHECK(back.card["note"] == "random weights, for tests");
    CHECK(back.file_bytes == bytes.size());

    Translator a(copy_of(m)), b(std::move(back));
    TranslationOptions opt;
    opt.beam_size = 3;
    TranslationResult ra = a.translate("A man in a blue shirt is riding a bike.", opt);
    TranslationResult rb = b.translate("A man in a blue shirt is riding a bike.", opt);
    CHECK(ra.target_ids == rb.target_ids);
    CHECK(ra.text == rb.text);
    CHECK(ra.source_tokens.back() == "<eos>");
}

TEST_CASE("F16 and I8 exports stay within their rounding error") {
    const TranslatorModel& m = small_model();
    for (DType dtype : {DType::F16, DType::I8}) {
        std::vector<uint8_t> bytes = save_translator_model(m, dtype);
        TranslatorModel back = load_translator_model_bytes(bytes, "q");
        CHECK(back.weights_dtype == dtype);
        for (const TensorSpec& spec : transformer_of(m).params.specs()) {
            const float* x = transformer_of(m).params.value_at(spec.offset);
            const float* y = transformer_of(back).params.value_at(spec.offset);
            const bool matrix = spec.shape.size() == 2;
            const int cols = matrix ? spec.shape[1] : static_cast<int>(spec.size);
            for (size_t r = 0; r < spec.size / cols; r++) {
                float amax = 0;
                for (int c = 0; c < cols; c++) amax = std::max(amax, std::fabs(x[r * cols + c]));
                for (int c = 0; c < cols; c++) {
                    const float err = std::fabs(x[r * cols + c] - y[r * cols + c]);
                    // F16: half an ulp at 11 bits of mantissa; I8: half a step of amax/127. Vectors stay F32.
                    const float bound = !matrix ? 0.0f
                                        : dtype == DType::F16 ? std::fabs(x[r * cols + c]) * (1.0f / 2048) + 1e-7f
                                                              : amax / 127.0f * 0.5f + 1e-7f;
                    CAPTURE(spec.name);
                    REQUIRE(err <= bound);
                }
            }
        }
    }
    CHECK(save_translator_model(m, DType::I8).size() < save_translator_model(m, DType::F16).size());
    CHECK(save_translator_model(m, DType::F16).size() < save_translator_model(m, DType::F32).size());
}

TEST_CASE("loading names what is wrong with a model file") {
    const TranslatorModel& m = small_model();
    CHECK(load_error(with_metadata(m, "attend.format", "something-else")).find("attend.format is 'something-else'") != std::string::npos);
    CHECK(load_error(with_metadata(m, "attend.format_version", "7")).find("version 7 is not supported") != std::string::npos);
    CHECK(load_error(with_metadata(m, "attend.config", "{not json")).find("attend.config") != std::string::npos);
    CHECK(load_error(with_metadata(m, "attend.special_tokens", R"({"pad":"<pad>","bos":"<start>","eos":"<eos>"})"))
              .find("<start> is not in the target vocabulary") != std::string::npos);
    nlohmann::json config = transformer_config_to_json(transformer_of(m).config);
    config["model_dim"] = 64;  // every tensor now has the wrong shape
    CHECK(load_error(with_metadata(m, "attend.config", config.dump())).find("has shape") != std::string::npos);
    config = transformer_config_to_json(transformer_of(m).config);
    config["src_vocab"] = 5;
    CHECK(load_error(with_metadata(m, "attend.config", config.dump())).find("source vocabulary has") != std::string::npos);

    // A tensor missing, and one too many.
    SafeTensors file = SafeTensors::from_bytes(save_translator_model(m, DType::F32));
    SafeTensorsWriter missing, extra;
    for (const auto& [k, v] : file.metadata()) { missing.set_metadata(k, v); extra.set_metadata(k, v); }
    for (const std::string& name : file.names()) {
        const TensorInfo& info = file.info(name);
        if (name != "decoder.layers.1.norm3.bias") missing.add_raw(name, info.dtype, info.shape, file.raw(name), info.end - info.begin);
        extra.add_raw(name, info.dtype, info.shape, file.raw(name), info.end - info.begin);
    }
    float one = 1.0f;
    extra.add_f32("decoder.layers.7.norm3.bias", {1}, &one);
    CHECK(load_error(missing.to_bytes()).find("'decoder.layers.1.norm3.bias' is missing") != std::string::npos);
    CHECK(load_error(extra.to_bytes()).find("unexpected tensor 'decoder.layers.7.norm3.bias'") != std::string::npos);

    // Not a model file at all, and a truncated one.
    std::vector<uint8_t> bytes = save_translator_model(m, DType::F32);
    CHECK_FALSE(load_error(std::vector<uint8_t>(bytes.begin(), bytes.begin() + bytes.size() / 2)).empty());
    CHECK_FALSE(load_error({'h', 'e', 'l', 'l', 'o'}).empty());
}

TEST_CASE("max_input_length cuts a long source to its size with a warning that names it; out of range is an error") {
    Translator t(copy_of(small_model()));
    const std::string text = "A man in a blue shirt is riding a bike down the street.";
    TranslationOptions o;
    o.max_input_length = 5;
    const TranslationResult r = t.translate(text, o);
    REQUIRE(r.source_tokens.size() == 5);
    CHECK(r.source_tokens.back() == "<eos>");
    REQUIRE(r.warnings.size() >= 1);
    CHECK(r.warnings.front().find("max input length is 5: only the first 4 were translated") != std::string::npos);
    // The same cut through the batch path.
    o.beam_size = 1;
    const std::vector<TranslationResult> batch = t.translate_batch({text, "A dog."}, o);
    CHECK(batch[0].source_tokens == r.source_tokens);
    auto cut_source = [](const TranslationResult& x) {
        for (const std::string& w : x.warnings)
            if (w.find("tokens long") != std::string::npos) return true;
        return false;
    };
    CHECK_FALSE(cut_source(batch[1]));
    // A limit above the model's changes nothing: the model's own limit and message stay.
    o.max_input_length = 4096;
    CHECK_FALSE(cut_source(t.translate(text, o)));  // (a random model's output may still be cut: another warning)
    o.max_input_length = 1;
    CHECK_THROWS_WITH_AS(t.translate(text, o), doctest::Contains("max input length must be 0"), Error);
    o.max_input_length = -1;
    CHECK_THROWS_WITH_AS(t.translate(text, o), doctest::Contains("max input length"), Error);
}

TEST_CASE("a model file may carry its own length penalty, which translation uses unless the caller sets one") {
    TranslatorModel m = copy_of(small_model());
    CHECK_FALSE(m.length_penalty.has_value());
    CHECK(Translator(copy_of(m)).default_options().length_penalty == TranslationOptions{}.length_penalty);
    m.length_penalty = 1.4f;
    const std::vector<uint8_t> bytes = save_translator_model(m, DType::I8);
    const SafeTensors file = SafeTensors::from_bytes(std::vector<uint8_t>(bytes));
    CHECK(nlohmann::json::parse(file.metadata().at("attend.decoding")) == nlohmann::json{{"length_penalty", 1.4f}});
    Translator t(load_translator_model_bytes(bytes, "lp"));
    REQUIRE(t.model().length_penalty.has_value());
    CHECK(*t.model().length_penalty == 1.4f);
    CHECK(t.default_options().length_penalty == 1.4f);
    CHECK(t.default_options().beam_size == TranslationOptions{}.beam_size);
    CHECK(t.info()["decoding"]["length_penalty"].get<float>() == 1.4f);
    CHECK(t.info()["decoding"]["length_penalty_from_model"] == true);
    // The model's default and the same alpha given explicitly give the same search.
    TranslationOptions explicit_alpha;
    explicit_alpha.length_penalty = 1.4f;
    const std::string text = "A man in a blue shirt is riding a bike.";
    CHECK(t.translate(text, t.default_options()).score == t.translate(text, explicit_alpha).score);

    // Bad decoding metadata is refused by name.
    for (const auto& [value, expected] : std::vector<std::pair<std::string, std::string>>{
             {"[1.4]", "must be a JSON object"},
             {R"({"length_penalty": "high"})", "length_penalty must be a number"},
             {R"({"length_penalty": -0.5})", "length_penalty must be a number in [0, 10]"},
             {R"({"length_penalty": 1e39})", "length_penalty must be a number in [0, 10]"},
             {R"({"length_penalty": 1.0, "beam": 4})", "unknown key 'beam'"},
             {"{oops", "attend.decoding"}}) {
        CAPTURE(value);
        const std::string error = load_error(with_metadata(small_model(), "attend.decoding", value));
        CHECK(error.find("attend.decoding") != std::string::npos);
        CHECK(error.find(expected) != std::string::npos);
    }
    TranslatorModel bad = copy_of(small_model());
    bad.length_penalty = std::nanf("");
    CHECK_THROWS_WITH_AS(save_translator_model(bad, DType::F32), doctest::Contains("length_penalty"), Error);
}

TEST_CASE("a model file may carry its own name placeholders, checked when read and written") {
    TranslatorModel m = copy_of(small_model());
    CHECK(m.name_placeholders.empty());
    CHECK(Translator(copy_of(m)).info()["decoding"]["name_placeholders"] == nlohmann::json(default_name_placeholders()));
    m.name_placeholders = {"Elmo", "Europe"};
    const std::vector<uint8_t> bytes = save_translator_model(m, DType::I8);
    const SafeTensors file = SafeTensors::from_bytes(std::vector<uint8_t>(bytes));
    CHECK(nlohmann::json::parse(file.metadata().at("attend.decoding")) ==
          nlohmann::json{{"name_placeholders", {"Elmo", "Europe"}}});
    Translator t(load_translator_model_bytes(bytes, "np"));
    CHECK(t.model().name_placeholders == std::vector<std::string>{"Elmo", "Europe"});
    CHECK_FALSE(t.model().length_penalty.has_value());
    CHECK(t.info()["decoding"]["name_placeholders"] == nlohmann::json{"Elmo", "Europe"});
    for (const auto& [value, expected] : std::vector<std::pair<std::string, std::string>>{
             {R"({"name_placeholders": "Elmo"})", "name_placeholders must be an array of strings"},
             {R"({"name_placeholders": ["Elmo", 3]})", "name_placeholders must be an array of strings"},
             {R"({"name_placeholders": []})", "name_placeholders must hold 1 to 8 names, got 0"},
             {R"({"name_placeholders": ["Aa","Bb","Cc","Dd","Ee","Ff","Gg","Hh","Ii"]})", "1 to 8 names, got 9"},
             {R"({"name_placeholders": ["elmo"]})", "name placeholder 'elmo' is not a capitalized word"},
             {R"({"name_placeholders": ["ELMO"]})", "name placeholder 'ELMO' is not a capitalized word"},
             {R"({"name_placeholders": ["El mo"]})", "name placeholder 'El mo' is not a capitalized word"},
             {R"({"name_placeholders": ["E"]})", "name placeholder 'E' is not a capitalized word"},
             {R"({"name_placeholders": ["Zoë"]})", "name placeholder 'Zoë' is not a capitalized word"},
             {R"({"name_placeholders": ["Elmo", "Elmo"]})", "name placeholder 'Elmo' is named twice"}}) {
        CAPTURE(value);
        const std::string error = load_error(with_metadata(small_model(), "attend.decoding", value));
        CHECK(error.find("attend.decoding") != std::string::npos);
        CHECK(error.find(expected) != std::string::npos);
    }
    TranslatorModel bad = copy_of(small_model());
    bad.name_placeholders = {"Elmo", ""};
    CHECK_THROWS_WITH_AS(save_translator_model(bad, DType::F32), doctest::Contains("name placeholder ''"), Error);
}

TEST_CASE("a model file may name the cross attention layers that align words for markup, checked against the model") {
    TranslatorModel m = copy_of(small_model());  // 2 decoder layers
    CHECK_FALSE(m.alignment_layers.has_value());
    const nlohmann::json every = Translator(copy_of(m)).info()["decoding"];
    CHECK(every["alignment_layers"] == nlohmann::json{0, 1});
    CHECK(every["alignment_layers_from_model"] == false);
    m.alignment_layers = std::array<int, 2>{1, 1};
    const std::vector<uint8_t> bytes = save_translator_model(m, DType::I8);
    const SafeTensors file = SafeTensors::from_bytes(std::vector<uint8_t>(bytes));
    CHECK(nlohmann::json::parse(file.metadata().at("attend.decoding")) == nlohmann::json{{"alignment_layers", {1, 1}}});
    Translator t(load_translator_model_bytes(bytes, "al"));
    CHECK(t.model().alignment_layers == std::array<int, 2>{1, 1});
    CHECK(t.info()["decoding"]["alignment_layers"] == nlohmann::json{1, 1});
    CHECK(t.info()["decoding"]["alignment_layers_from_model"] == true);
    // Markup still goes around words with either choice, and the translation is the plain one.
    const std::string plain = t.translate("A man in a blue shirt is riding a bike.").text;
    const std::string marked = t.translate("A <b>man</b> in a blue shirt is riding a bike.").text;
    CHECK(std::regex_replace(marked, std::regex("</?b>"), "") == plain);
    for (const auto& [value, expected] : std::vector<std::pair<std::string, std::string>>{
             {R"({"alignment_layers": 1})", "alignment_layers must be an array of two layer numbers [first, last]"},
             {R"({"alignment_layers": [1]})", "must be an array of two layer numbers"},
             {R"({"alignment_layers": [0, 1, 1]})", "must be an array of two layer numbers"},
             {R"({"alignment_layers": ["0", "1"]})", "must be an array of two layer numbers"},
             {R"({"alignment_layers": [0.5, 1]})", "must be an array of two layer numbers"},
             {R"({"alignment_layers": [0, 1e20]})", "must be an array of two layer numbers"},
             {R"({"alignment_layers": [0, 18446744073709551615]})", "must be an array of two layer numbers"},
             {R"({"alignment_layers": [-9223372036854775808, 1]})", "must be an array of two layer numbers"},
             {R"({"alignment_layers": [1, 0]})", "alignment_layers must be [first, last] with 0 <= first <= last < 2"},
             {R"({"alignment_layers": [0, 2]})", "0 <= first <= last < 2 (the model's cross attention layers), got [0, 2]"},
             {R"({"alignment_layers": [-1, 0]})", "0 <= first <= last < 2"}}) {
        CAPTURE(value);
        const std::string error = load_error(with_metadata(small_model(), "attend.decoding", value));
        CHECK(error.find("attend.decoding") != std::string::npos);
        CHECK(error.find(expected) != std::string::npos);
    }
    TranslatorModel bad = copy_of(small_model());
    bad.alignment_layers = std::array<int, 2>{0, 5};
    CHECK_THROWS_WITH_AS(save_translator_model(bad, DType::F32), doctest::Contains("alignment_layers"), Error);
}

TEST_CASE("a translation's confidence is the geometric mean of its tokens' probabilities; below the threshold, a warning") {
    Translator t(copy_of(small_model()));
    const std::string text = "A man in a blue shirt is riding a bike.";
    for (const int beam : {1, 3}) {
        CAPTURE(beam);
        TranslationOptions o;
        o.beam_size = beam;
        const TranslationResult r = t.translate(text, o);
        CHECK(r.confidence > 0.0f);
        CHECK(r.confidence <= 1.0f);
        CHECK(r.confidence == doctest::Approx(std::exp(r.log_prob / r.target_tokens.size())).epsilon(1e-6));
        CHECK_FALSE(r.low_confidence);  // the default threshold, 0, flags nothing
        // Flagged strictly below the threshold, with a warning that says so; the translation itself is the same.
        o.min_confidence = r.confidence;
        CHECK_FALSE(t.translate(text, o).low_confidence);
        o.min_confidence = std::nextafter(r.confidence, 1.0f);
        const TranslationResult low = t.translate(text, o);
        CHECK(low.low_confidence);
        CHECK(low.target_ids == r.target_ids);
        REQUIRE(low.warnings.size() == r.warnings.size() + 1);
        CHECK(low.warnings.back().find("low confidence") == 0);
        // Batched greedy search flags alike.
        if (beam == 1) CHECK(t.translate_batch({text, text}, o)[1].low_confidence);
    }
    // Text left as it is has no confidence and is never flagged.
    TranslationOptions all;
    all.min_confidence = 1.0f;
    const TranslationResult digits = t.translate("50%", all);
    CHECK(digits.untranslated);
    CHECK(digits.confidence == 0.0f);
    CHECK_FALSE(digits.low_confidence);
    CHECK(digits.warnings.empty());
    for (const float bad : {-0.1f, 1.5f, std::nanf("")}) {
        TranslationOptions o;
        o.min_confidence = bad;
        CHECK_THROWS_WITH_AS(t.translate(text, o), doctest::Contains("min confidence must be between 0 and 1"), Error);
    }
}

TEST_CASE("a model file may carry its own confidence threshold, which translation uses unless the caller sets one") {
    TranslatorModel m = copy_of(small_model());
    CHECK_FALSE(m.min_confidence.has_value());
    CHECK(Translator(copy_of(m)).default_options().min_confidence == 0.0f);
    m.min_confidence = 0.5f;
    const std::vector<uint8_t> bytes = save_translator_model(m, DType::I8);
    const SafeTensors file = SafeTensors::from_bytes(std::vector<uint8_t>(bytes));
    CHECK(nlohmann::json::parse(file.metadata().at("attend.decoding")) == nlohmann::json{{"min_confidence", 0.5f}});
    Translator t(load_translator_model_bytes(bytes, "mc"));
    REQUIRE(t.model().min_confidence.has_value());
    CHECK(*t.model().min_confidence == 0.5f);
    CHECK_FALSE(t.model().length_penalty.has_value());  // each setting of attend.decoding stands alone
    CHECK(t.default_options().min_confidence == 0.5f);
    CHECK(t.info()["decoding"]["min_confidence"].get<float>() == 0.5f);
    for (const auto& [value, expected] : std::vector<std::pair<std::string, std::string>>{
             {R"({"min_confidence": "low"})", "min_confidence must be a number"},
             {R"({"min_confidence": 1.5})", "min_confidence must be a number in [0, 1]"},
             {R"({"min_confidence": -0.1})", "min_confidence must be a number in [0, 1]"},
             {R"({"min_confidence": 0.5, "max_confidence": 1})", "unknown key 'max_confidence'"}}) {
        CAPTURE(value);
        const std::string error = load_error(with_metadata(small_model(), "attend.decoding", value));
        CHECK(error.find("attend.decoding") != std::string::npos);
        CHECK(error.find(expected) != std::string::npos);
    }
    TranslatorModel bad = copy_of(small_model());
    bad.min_confidence = 2.0f;
    CHECK_THROWS_WITH_AS(save_translator_model(bad, DType::F32), doctest::Contains("min_confidence"), Error);
}

TEST_CASE("translate rejects empty and invalid text with the reason, and translates the start of over-long text") {
    Translator t(copy_of(small_model()));
    CHECK_THROWS_WITH(t.translate(""), doctest::Contains("empty"));
    CHECK_THROWS_WITH(t.translate("   \n"), doctest::Contains("empty"));
    CHECK_THROWS_WITH(t.translate("a \xff\xfe dog"), doctest::Contains("UTF-8"));
    std::string long_text, start_text;
    for (int i = 0; i < 60; i++) long_text += "dog ";
    for (int i = 0; i < 39; i++) start_text += "dog ";
    CHECK_THROWS_WITH(t.source_tokens(long_text), doctest::Contains("accepts at most 40 tokens"));
    TranslationOptions opt;
    opt.beam_size = 2;
    const TranslationResult r = t.translate(long_text, opt);
    REQUIRE(r.warnings.size() >= 1);
    CHECK(r.warnings[0] == "the text is 61 tokens long (with <eos>); this model accepts at most 40: only the first 39 were "
                           "translated");
    CHECK(r.source_tokens == t.source_tokens(start_text));
    const TranslationResult start = t.translate(start_text, opt);
    CHECK(r.target_ids == start.target_ids);
    CHECK(r.warnings.size() == start.warnings.size() + 1);
}

TEST_CASE("translation options out of range are errors that name the option and its range") {
    Translator t(copy_of(small_model()));
    auto error_of = [&](auto change) {
        TranslationOptions o;
        change(o);
        try {
            t.translate("a dog", o);
        } catch (const Error& e) {
            CHECK_THROWS_WITH(t.translate_batch({"a dog"}, o), e.what());  // the same check for batches
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK(error_of([](TranslationOptions& o) { o.beam_size = 0; }) == "beam size must be between 1 and 64, got 0");
    CHECK(error_of([](TranslationOptions& o) { o.beam_size = 1000; }) == "beam size must be between 1 and 64, got 1000");
    CHECK(error_of([](TranslationOptions& o) { o.length_penalty = NAN; }) == "length penalty must be a finite number, got NaN");
    CHECK(error_of([](TranslationOptions& o) { o.length_penalty = -INFINITY; }) ==
          "length penalty must be a finite number, got -Infinity");
    CHECK(error_of([](TranslationOptions& o) { o.max_length = -1; }) == "max length must be between 0 and 4096, got -1");
    CHECK(error_of([](TranslationOptions& o) { o.max_length = 5000; }) == "max length must be between 0 and 4096, got 5000");
    CHECK(error_of([](TranslationOptions& o) { o.max_length_ratio = NAN; }) ==
          "max length ratio must be between 0 and 1000, got NaN");
    CHECK(error_of([](TranslationOptions& o) { o.no_repeat_ngram_size = -1; }) ==
          "no_repeat_ngram_size must be between 0 and 64, got -1");
    CHECK(error_of([](TranslationOptions& o) { o.no_adjacent_repeat_size = 65; }) ==
          "no_adjacent_repeat_size must be between 0 and 64, got 65");
    CHECK(error_of([](TranslationOptions& o) { o.max_piece_run = -1; }) == "max piece run must be between 0 and 1000, got -1");
    CHECK(error_of([](TranslationOptions& o) { o.repetition_penalty = 0.0f; }) ==
          "repetition penalty must be a finite number above 0, got 0");
    CHECK(error_of([](TranslationOptions& o) { o.repetition_penalty = INFINITY; }) ==
          "repetition penalty must be a finite number above 0, got Infinity");
    CHECK(error_of([](TranslationOptions& o) { o.max_batch_size = 0; }) == "max batch size must be between 1 and 1024, got 0");
    CHECK(error_of([](TranslationOptions& o) { o.clause_split_words = -1; }) ==
          "clause split words must be between 0 and 100000, got -1");
    CHECK(error_of([](TranslationOptions& o) { o.beam_size = 64; }) == "no error");
}

TEST_CASE("the output length is capped relative to the source, and a cut translation says so") {
    Translator t(copy_of(small_model()));
    for (float ratio : {0.0f, 0.5f, 1.0f, 2.0f})
        for (int beam : {1, 3}) {
            TranslationOptions opt;
            opt.beam_size = beam;
            opt.max_length_ratio = ratio;
            const TranslationResult r = t.translate("Two dogs play in the snow.", opt);
            const int S = static_cast<int>(r.source_tokens.size());
            const int limit = ratio > 0 ? std::min(t.model().max_target_tokens(), static_cast<int>(std::ceil(ratio * S)) + 10)
                                        : t.model().max_target_tokens();
            CAPTURE(ratio);
            CAPTURE(beam);
            CHECK(static_cast<int>(r.target_ids.size()) <= limit);
            CHECK(r.finished == (!r.target_ids.empty() && r.target_ids.back() == t.model().eos_id));
            if (r.finished) CHECK(r.warnings.empty());
            else CHECK(r.warnings == std::vector<std::string>{"the translation was cut at " + std::to_string(r.target_ids.size()) +
                                                             " tokens (the length limit) before the model ended it"});
        }
    TranslationOptions cut;
    cut.max_length = 2;
    const TranslationResult r = t.translate("Two dogs play in the snow.", cut);
    if (!r.finished) CHECK(r.warnings.size() == 1);
    CHECK(r.target_ids.size() <= 2);
}

TEST_CASE("attention maps cover every layer and head, rows are distributions, decoder self-attention is causal") {
    Translator t(copy_of(small_model()));
    TranslationOptions opt;
    opt.beam_size = 2;
    opt.max_length = 8;
    opt.return_attention = true;
    TranslationResult r = t.translate("Two dogs play in the snow.", opt);
    const int S = static_cast<int>(r.source_tokens.size()), T = static_cast<int>(r.target_tokens.size());
    REQUIRE(T >= 1);
    const TransformerConfig& c = transformer_of(t.model()).config;
    auto check_maps = [&](const AttentionMaps& a, int rows, int cols, bool causal) {
        REQUIRE(a.layers == c.decoder_layers);
        REQUIRE(a.heads == c.heads);
        REQUIRE(a.rows == rows);
        REQUIRE(a.cols == cols);
        REQUIRE(a.data.size() == size_t(a.layers) * a.heads * rows * cols);
        for (int m = 0; m < a.layers * a.heads; m++)
            for (int i = 0; i < rows; i++) {
                double sum = 0;
                for (int j = 0; j < cols; j++) {
                    const float w = a.data[(size_t(m) * rows + i) * cols + j];
                    CHECK(w >= 0.0f);
                    if (causal && j > i) CHECK(w == 0.0f);
                    sum += w;
                }
                CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
            }
    };
    check_maps(r.encoder_self, S, S, false);
    check_maps(r.cross, T, S, false);
    check_maps(r.decoder_self, T, T, true);

    opt.return_attention = false;
    TranslationResult plain = t.translate("Two dogs play in the snow.", opt);
    CHECK(plain.cross.data.empty());
    CHECK(plain.target_ids == r.target_ids);
}

TEST_CASE("batch translation returns results in input order") {
    Translator t(copy_of(small_model()));
    std::vector<std::string> texts{"A very long sentence about a man with a hat who walks down the street.",
                                   "A dog.", "Two children are playing on the beach."};
    TranslationOptions opt;
    opt.beam_size = 2;
    std::vector<TranslationResult> batch = t.translate_batch(texts, opt);
    REQUIRE(batch.size() == texts.size());
    for (size_t i = 0; i < texts.size(); i++) CHECK(batch[i].target_ids == t.translate(texts[i], opt).target_ids);
    CHECK_THROWS_WITH(t.translate_batch({"A dog.", ""}, opt), doctest::Contains("sentence 2"));
    nlohmann::json info = t.info();
    CHECK(info["source_language"] == "en");
    CHECK(info["target_language"] == "de");
    CHECK(info["parameters"].get<size_t>() == transformer_of(t.model()).params.size());
}

TEST_CASE("batched greedy translation gives the tokens and scores of one sentence at a time") {
    Translator t(copy_of(small_model()));
    ParallelText text = load_multi30k(default_data_dir(), "test_2016_flickr", Lang::en, Lang::de, TextForm::raw);
    std::vector<std::string> texts;  // 40 sentences this small model accepts (it takes at most 40 tokens)
    for (size_t i = 0; texts.size() < 40 && i < text.source.size(); i++) {
        const int words = static_cast<int>(std::count(text.source[i].begin(), text.source[i].end(), ' ')) + 1;
        if (words <= 8) texts.push_back(text.source[i]);
    }
    TranslationOptions one;
    one.beam_size = 1;
    for (int max_length : {0, 3}) {  // 3: random weights rarely say <eos>, so rows leave the batch at their limit
        one.max_length = max_length;
        for (int batch : {2, 7, 64}) {
            TranslationOptions opt = one;
            opt.max_batch_size = batch;
            std::vector<TranslationResult> batched = t.translate_batch(texts, opt);
            REQUIRE(batched.size() == texts.size());
            for (size_t i = 0; i < texts.size(); i++) {
                const TranslationResult single = t.translate(texts[i], one);
                CHECK(batched[i].target_ids == single.target_ids);
                CHECK(batched[i].finished == single.finished);
                CHECK(batched[i].text == single.text);
                CHECK(batched[i].log_prob == doctest::Approx(single.log_prob).epsilon(1e-5));
                CHECK(batched[i].source_tokens == single.source_tokens);
                CHECK(batched[i].warnings == single.warnings);
            }
        }
    }
    TranslationOptions bad = one;
    bad.max_batch_size = 0;
    CHECK_THROWS_WITH(t.translate_batch(texts, bad), doctest::Contains("max batch size"));
    CHECK_THROWS_WITH(t.translate_batch({"A dog.", "A cat.", "\xff"}, one), doctest::Contains("sentence 3"));
}

TEST_CASE("a document is translated sentence by sentence, its lines and empty lines kept, each span in the input") {
    Translator t(copy_of(small_model()));
    const std::string text = "A man is walking. A woman is sitting on a bench.\n\n  Two children play in the snow.\n\x01\x02\nÜber 😀.";
    TranslationOptions opt;
    opt.beam_size = 2;
    opt.return_attention = true;
    const DocumentTranslation doc = t.translate_document(text, opt);
    REQUIRE(doc.sentences.size() == 5);
    const std::vector<std::string> sources = {"A man is walking.", "A woman is sitting on a bench.",
                                              "Two children play in the snow.", "\x01\x02", "Über 😀."};
    const std::vector<int> lines = {0, 0, 2, 3, 4};
    for (size_t i = 0; i < sources.size(); i++) {
        const DocumentSentence& s = doc.sentences[i];
        CAPTURE(i);
        CHECK(text.substr(s.begin, s.end - s.begin) == sources[i]);
        CHECK(s.line == lines[i]);
        if (i == 3) continue;  // control characters alone: no text, skipped
        const TranslationResult alone = t.translate(sources[i], opt);
        CHECK(s.result.target_ids == alone.target_ids);
        CHECK(s.result.text == alone.text);
        CHECK(s.result.cross.data == alone.cross.data);
    }
    // UTF-16 offsets: "Ü" is one unit, the emoji two.
    const DocumentSentence& last = doc.sentences[4];
    CHECK(last.utf16_end - last.utf16_begin == std::string("Über ").size() - 1 + 2 + 1);
    CHECK(doc.sentences[0].utf16_begin == 0);
    CHECK(doc.sentences[2].utf16_begin == 52);
    CHECK(doc.sentences[3].result.text.empty());
    // (random weights may also run into the length limit: those warnings name their sentences too)
    CHECK(std::count(doc.warnings.begin(), doc.warnings.end(),
                     "line 4, sentence 1: the text to translate is empty: skipped") == 1);
    for (const std::string& w : doc.warnings) CHECK(w.rfind("line ", 0) == 0);
    const std::string expected = doc.sentences[0].result.text + " " + doc.sentences[1].result.text + "\n\n" +
                                 doc.sentences[2].result.text + "\n\n" + doc.sentences[4].result.text;
    CHECK(doc.text == expected);
    CHECK(t.translate_document("", opt).text.empty());
    CHECK(t.translate_document("\n\n", opt).text == "\n\n");
    CHECK_THROWS_WITH(t.translate_document("A dog. \xff", opt), doctest::Contains("invalid UTF-8 at byte 7"));
    TranslationOptions bad;
    bad.beam_size = 65;
    CHECK_THROWS_WITH(t.translate_document("A dog.", bad), doctest::Contains("beam size"));
}

TEST_CASE("a long sentence of a document is translated clause by clause, each clause an entry of its own") {
    Translator t(copy_of(small_model()));
    const std::string text =
        "A dog runs.\nA man in an orange hat is staring at something, and a small dog is running on the green "
        "grass; a girl in a white uniform breaks a stick with a kick. Two children play.";
    TranslationOptions opt;
    opt.beam_size = 2;
    opt.return_attention = true;
    const DocumentTranslation doc = t.translate_document(text, opt);
    REQUIRE(doc.sentences.size() == 5);
    const std::vector<std::string> spans = {"A dog runs.", "A man in an orange hat is staring at something",
                                            "a small dog is running on the green grass",
                                            "a girl in a white uniform breaks a stick with a kick.", "Two children play."};
    const std::vector<std::string> read = {"A dog runs.", "A man in an orange hat is staring at something.",
                                           "A small dog is running on the green grass.",
                                           "A girl in a white uniform breaks a stick with a kick.", "Two children play."};
    for (size_t i = 0; i < spans.size(); i++) {
        const DocumentSentence& s = doc.sentences[i];
        CAPTURE(i);
        CHECK(text.substr(s.begin, s.end - s.begin) == spans[i]);
        CHECK(s.line == (i == 0 ? 0 : 1));
        const TranslationResult alone = t.translate(read[i], opt);
        CHECK(s.result.source_tokens == alone.source_tokens);
        CHECK(s.result.target_ids == alone.target_ids);
        CHECK(s.result.cross.data == alone.cross.data);
    }
    // The clauses are joined into one sentence again (translate/clause_join.h), the sentences side by side.
    std::vector<std::string> joiners, translations;
    for (const DocumentSentence& s : doc.sentences) {
        joiners.push_back(s.joiner);
        translations.push_back(s.result.text);
    }
    CHECK(joiners == std::vector<std::string>{"", "", ", und ", "; ", " "});
    const std::vector<PlacedTranslation> placed =
        place_translations(text, t.segments(text, opt), translations, Lang::de);
    for (size_t i = 0; i < placed.size(); i++) CHECK(doc.sentences[i].placed_text == placed[i].text);
    CHECK(doc.text == doc.sentences[0].placed_text + "\n" + doc.sentences[1].placed_text + ", und " +
                          doc.sentences[2].placed_text + "; " + doc.sentences[3].placed_text + " " +
                          doc.sentences[4].placed_text);
    // The sentence of 32 words is one entry with clause_split_words 0 or 32; the same entries with 31.
    for (int words : {0, 32, 31}) {
        CAPTURE(words);
        opt.clause_split_words = words;
        const DocumentTranslation d = t.translate_document(text, opt);
        REQUIRE(d.sentences.size() == (words == 31 ? 5u : 3u));
        if (words == 31) continue;
        CHECK(d.sentences[1].begin == doc.sentences[1].begin);
        CHECK(d.sentences[1].end == doc.sentences[3].end);
        CHECK(d.sentences[1].result.target_ids == t.translate(text.substr(d.sentences[1].begin,
                                                                          d.sentences[1].end - d.sentences[1].begin), opt)
                                                      .target_ids);
    }
}
