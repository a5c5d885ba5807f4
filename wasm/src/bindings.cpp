// The C interface of the WebAssembly module, wrapped by attend.js. Handles are small integers; strings and
// floats returned stay valid until the next call on the same handle (or until it is freed). Every function
// catches C++ exceptions: a failure returns 0 and attend_last_error() says why.
#include "error.h"
#include "guarded.h"
#include "lm/lm_model_file.h"
#include "translate/option_table.h"
#include "translate/translator.h"

#include <emscripten/emscripten.h>

#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <utility>

using namespace attend;

namespace {

std::string g_last_error;
std::map<int, std::unique_ptr<Translator>> g_translators;
std::map<int, LanguageModel> g_language_models;
std::string g_lm_info;
struct Result {
    std::string json;
    std::vector<float> floats;  // cross, encoder_self, decoder_self maps, one after another
};
std::map<int, Result> g_results;
std::string g_info, g_defaults;
int g_next_handle = 1;

template <typename F>
auto guarded(F&& f, decltype(f()) on_error) -> decltype(f()) {
    return attend::guarded(g_last_error, std::forward<F>(f), on_error);
}

Translator& translator(int handle) {
    auto it = g_translators.find(handle);
    if (it == g_translators.end()) throw Error("this translator was disposed (handle " + std::to_string(handle) + ")");
    return *it->second;
}

// options[key] as a number, or `fallback` when absent; anything else names the option.
double number_option(const nlohmann::json& options, const char* key, double fallback) {
    auto it = options.find(key);
    if (it == options.end() || it->is_null()) return fallback;
    if (!it->is_number()) throw Error(std::string("option ") + key + " must be a number, got " + it->dump());
    return it->get<double>();
}

// Whole numbers only, and within int before the cast (the core then checks the option's own range).
int int_option(const nlohmann::json& options, const char* key, int fallback) {
    const double v = number_option(options, key, fallback);
    if (!(v == std::floor(v) && std::fabs(v) <= 1e9))
        throw Error(std::string("option ") + key + " must be a whole number of reasonable size, got " +
                    nlohmann::json(v).dump());
    return static_cast<int>(v);
}

LanguageModel& language_model(int handle) {
    auto it = g_language_models.find(handle);
    if (it == g_language_models.end())
        throw Error("this language model was disposed (handle " + std::to_string(handle) + ")");
    return it->second;
}

nlohmann::json append_maps(std::vector<float>& floats, const AttentionMaps& a) {
    nlohmann::json j = {{"layers", a.layers}, {"heads", a.heads}, {"rows", a.rows}, {"cols", a.cols},
                        {"offset", floats.size()}, {"length", a.data.size()}};
    floats.insert(floats.end(), a.data.begin(), a.data.end());
    return j;
}

// {layers, heads, queries, keys, dim, qOffset, kOffset} with q [layers, heads, queries, dim] and k [layers, heads,
// keys, dim] appended to floats.
nlohmann::json append_query_keys(std::vector<float>& floats, const QueryKeyVectors& v) {
    nlohmann::json j = {{"layers", v.layers}, {"heads", v.heads}, {"queries", v.queries}, {"keys", v.keys},
                        {"dim", v.dim},       {"qOffset", floats.size()}, {"kOffset", floats.size() + v.q.size()}};
    floats.insert(floats.end(), v.q.begin(), v.q.end());
    floats.insert(floats.end(), v.k.begin(), v.k.end());
    return j;
}

}  // namespace

extern "C" {

EMSCRIPTEN_KEEPALIVE const char* attend_last_error() { return g_last_error.c_str(); }

EMSCRIPTEN_KEEPALIVE int attend_translator_load(const uint8_t* bytes, size_t n, const char* name) {
    return guarded([&] {
        auto t = std::make_unique<Translator>(Translator::from_bytes(std::vector<uint8_t>(bytes, bytes + n), name));
        const int h = g_next_handle++;
        g_translators[h] = std::move(t);
        return h;
    }, 0);
}

EMSCRIPTEN_KEEPALIVE void attend_translator_free(int handle) { g_translators.erase(handle); }

EMSCRIPTEN_KEEPALIVE const char* attend_translator_info(int handle) {
    return guarded([&] {
        g_info = translator(handle).info().dump();
        return g_info.c_str();
    }, static_cast<const char*>(nullptr));
}

}  // extern "C"

namespace {

// The options of the JavaScript API are the option table's rows with a JavaScript name (translate/option_table.h):
// attend.js reads their bounds (attend_option_rules) to refuse a bad value with a RangeError before the core's
// validate_options sees it.

// The options in the JavaScript API's names.
nlohmann::json options_json(const TranslationOptions& opt) {
    nlohmann::json j = nlohmann::json::object();
    for (const TranslationOptionRow& row : translation_option_table()) {
        if (!row.js) continue;
        switch (row.kind) {
            case OptionKind::integer: j[row.js] = opt.*row.int_field; break;
            case OptionKind::number: j[row.js] = opt.*row.float_field; break;
            case OptionKind::boolean: j[row.js] = opt.*row.bool_field; break;
        }
    }
    return j;
}

// options_json: the JavaScript API's names (the option table's); absent keys take the translator's defaults
// (Translator::default_options: the model's own length penalty where its file has one).
TranslationOptions parse_options(const Translator& translator, const char* options_json) {
    nlohmann::json o = nlohmann::json::parse(options_json ? options_json : "{}", nullptr, /*allow_exceptions=*/false);
    if (!o.is_object()) throw Error("the options must be a JSON object");
    TranslationOptions opt = translator.default_options();
    for (const TranslationOptionRow& row : translation_option_table()) {
        if (!row.js) continue;
        switch (row.kind) {
            case OptionKind::integer: opt.*row.int_field = int_option(o, row.js, opt.*row.int_field); break;
            case OptionKind::number:
                opt.*row.float_field = static_cast<float>(number_option(o, row.js, opt.*row.float_field));
                break;
            case OptionKind::boolean: {
                auto it = o.find(row.js);
                if (it == o.end()) break;
                if (!it->is_boolean())
                    throw Error(std::string("option ") + row.js + " must be true or false, got " + it->dump());
                opt.*row.bool_field = it->get<bool>();
                break;
            }
        }
    }
    if (auto it = o.find("targetPrefix"); it != o.end() && !it->is_null()) {
        if (!it->is_array()) throw Error("option targetPrefix must be an array of target tokens, got " + it->dump());
        for (const nlohmann::json& token : *it) {
            if (!token.is_string())
                throw Error("option targetPrefix must hold target tokens (strings), got " + token.dump());
            opt.target_prefix.push_back(token.get<std::string>());
        }
    }
    validate_options(opt);
    return opt;
}

// One translation as JSON; its attention maps and query and key vectors (when kept) appended to floats.
nlohmann::json result_json(const TranslationResult& r, const TranslationOptions& opt, std::vector<float>& floats) {
    const bool attention = opt.return_attention;
    nlohmann::json j = {{"text", r.text}, {"tokenized", r.tokenized}, {"sourceTokens", r.source_tokens},
                        {"targetTokens", r.target_tokens}, {"targetIds", r.target_ids}, {"score", r.score},
                        {"logProb", r.log_prob}, {"finished", r.finished}, {"untranslated", r.untranslated},
                        {"confidence", r.confidence}, {"lowConfidence", r.low_confidence},
                        {"warnings", r.warnings}, {"omittedWords", r.omitted_words},
                        {"timings", {{"preprocessMs", r.preprocess_ms}, {"searchMs", r.search_ms},
                                     {"attentionMs", r.attention_ms}}}};
    if (opt.omission_gain > 0) {
        nlohmann::json& gains = j["sourceWordGains"] = nlohmann::json::array();
        for (const SourceWordGain& g : r.source_word_gains) gains.push_back({{"word", g.word}, {"gain", g.gain}});
    }
    if (!r.alternatives.empty()) {
        nlohmann::json& alternatives = j["alternatives"] = nlohmann::json::array();
        for (const TokenAlternatives& a : r.alternatives)
            alternatives.push_back({{"token", a.token}, {"probability", a.probability}, {"tokens", a.tokens},
                                    {"ids", a.ids}, {"probabilities", a.probabilities}});
    }
    if (attention && !r.source_tokens.empty())
        j["attention"] = {{"cross", append_maps(floats, r.cross)},
                          {"encoderSelf", append_maps(floats, r.encoder_self)},
                          {"decoderSelf", append_maps(floats, r.decoder_self)}};
    // Only a Transformer has query and key vectors: a Bahdanau model's result says so by having no neurons.
    if (opt.return_neurons && r.neurons.cross.layers > 0)
        j["neurons"] = {{"encoderSelf", append_query_keys(floats, r.neurons.encoder_self)},
                        {"decoderSelf", append_query_keys(floats, r.neurons.decoder_self)},
                        {"cross", append_query_keys(floats, r.neurons.cross)}};
    return j;
}

int store(Result out) {
    const int h = g_next_handle++;
    g_results[h] = std::move(out);
    return h;
}

}  // namespace

extern "C" {

EMSCRIPTEN_KEEPALIVE int attend_translate(int handle, const char* text, const char* options_json) {
    return guarded([&] {
        Translator& t = translator(handle);
        const TranslationOptions opt = parse_options(t, options_json);
        Result out;
        out.json = result_json(t.translate(text, opt), opt, out.floats).dump();
        return store(std::move(out));
    }, 0);
}

// {"text", "warnings", "sentences": [{"begin", "end" (UTF-16 indices of the input), "line", "joiner", "placedText",
// ...translation}]}
EMSCRIPTEN_KEEPALIVE int attend_translate_document(int handle, const char* text, const char* options_json) {
    return guarded([&] {
        Translator& t = translator(handle);
        const TranslationOptions opt = parse_options(t, options_json);
        const DocumentTranslation doc = t.translate_document(text, opt);
        Result out;
        nlohmann::json sentences = nlohmann::json::array();
        for (const DocumentSentence& s : doc.sentences) {
            nlohmann::json j = result_json(s.result, opt, out.floats);
            j["begin"] = s.utf16_begin;
            j["end"] = s.utf16_end;
            j["line"] = s.line;
            j["joiner"] = s.joiner;
            j["placedText"] = s.placed_text;
            sentences.push_back(std::move(j));
        }
        out.json = nlohmann::json{{"text", doc.text}, {"warnings", doc.warnings}, {"sentences", sentences}}.dump();
        return store(std::move(out));
    }, 0);
}

// [{"name", "integer", "min", "max", "aboveMin"}, ...]: the number options of the table, for attend.js's checks.
EMSCRIPTEN_KEEPALIVE const char* attend_option_rules() {
    static const std::string rules = [] {
        nlohmann::json j = nlohmann::json::array();
        for (const TranslationOptionRow& row : translation_option_table())
            if (row.js && row.kind != OptionKind::boolean)
                j.push_back({{"name", row.js}, {"integer", row.kind == OptionKind::integer}, {"min", row.min},
                             {"max", row.max}, {"aboveMin", row.above_min}});
        return j.dump();
    }();
    return rules.c_str();
}

// The option table's rows with a JavaScript name: [{"name", "field" (C++), "flag" (the CLI's long flag, or null),
// "type" ("integer", "number", "boolean"), "default" (the core's), "modelDefault", "min", "max", "aboveMin",
// "help"}], in attend_option_rules' order, the booleans after the numbers.
EMSCRIPTEN_KEEPALIVE const char* attend_option_table() {
    static const std::string table = [] {
        nlohmann::json j = nlohmann::json::array();
        for (const TranslationOptionRow& row : translation_option_table()) {
            if (!row.js) continue;
            const bool boolean = row.kind == OptionKind::boolean;
            const std::string flag = row.flag ? row.flag : "";
            nlohmann::json entry = {
                {"name", row.js},
                {"field", row.field},
                {"flag", row.flag ? nlohmann::json(flag.substr(flag.rfind("--"))) : nlohmann::json(nullptr)},
                {"type", boolean ? "boolean" : row.kind == OptionKind::integer ? "integer" : "number"},
                {"default", boolean ? nlohmann::json(row.default_value() != 0) : nlohmann::json(row.default_value())},
                {"modelDefault", row.model_default},
                {"help", row.help}};
            if (!boolean) {
                entry["min"] = row.min;
                entry["max"] = row.max;
                entry["aboveMin"] = row.above_min;
            }
            j.push_back(std::move(entry));
        }
        return j.dump();
    }();
    return table.c_str();
}

// The options a translate call starts from (Translator::default_options), in the JavaScript API's names.
EMSCRIPTEN_KEEPALIVE const char* attend_translator_defaults(int handle) {
    return guarded([&] {
        g_defaults = options_json(translator(handle).default_options()).dump();
        return g_defaults.c_str();
    }, static_cast<const char*>(nullptr));
}

EMSCRIPTEN_KEEPALIVE const char* attend_result_json(int handle) {
    auto it = g_results.find(handle);
    return it == g_results.end() ? nullptr : it->second.json.c_str();
}

EMSCRIPTEN_KEEPALIVE const float* attend_result_floats(int handle) {
    auto it = g_results.find(handle);
    return it == g_results.end() ? nullptr : it->second.floats.data();
}

EMSCRIPTEN_KEEPALIVE void attend_result_free(int handle) { g_results.erase(handle); }

// ---- character language models (lm/lm_model_file.h) ----------------------------------------------------------

EMSCRIPTEN_KEEPALIVE int attend_lm_load(const uint8_t* bytes, size_t n, const char* name) {
    return guarded([&] {
        LanguageModel m = load_language_model_bytes(std::vector<uint8_t>(bytes, bytes + n), name);
        const int h = g_next_handle++;
        g_language_models.emplace(h, std::move(m));
        return h;
    }, 0);
}

EMSCRIPTEN_KEEPALIVE void attend_lm_free(int handle) { g_language_models.erase(handle); }

// {"config", "vocab": [id order], "parameters", "dtype", "card"}
EMSCRIPTEN_KEEPALIVE const char* attend_lm_info(int handle) {
    return guarded([&] {
        const LanguageModel& m = language_model(handle);
        g_lm_info = nlohmann::json{{"config", nlohmann::json(m.network->config())},
                                   {"vocab", m.vocab.id_to_token()},
                                   {"parameters", m.network->parameters().size()},
                                   {"dtype", dtype_name(m.weights_dtype)},
                                   {"card", m.card}}
                        .dump();
        return g_lm_info.c_str();
    }, static_cast<const char*>(nullptr));
}

// options: {"length", "temperature", "top_k", "seed"} (each optional; lm_generate's defaults: 50 greedy characters).
// A result (attend_result_json/floats/free): {"text": prefix + continuation, "continuation", "prefix_ids", "ids",
// "vocab_size"}, and floats [length, V]: the next-character distribution before each generated character.
EMSCRIPTEN_KEEPALIVE int attend_lm_generate(int handle, const char* prefix, const char* options_json) {
    return guarded([&] {
        LanguageModel& m = language_model(handle);
        const nlohmann::json options = nlohmann::json::parse(options_json ? options_json : "{}");
        if (!options.is_object()) throw Error("options must be a JSON object");
        for (const auto& [key, value] : options.items())
            if (key != "length" && key != "temperature" && key != "top_k" && key != "seed")
                throw Error("unknown option '" + key + "' (expected length, temperature, top_k, seed)");
        LmGenerateOptions o;
        o.length = int_option(options, "length", o.length);
        o.temperature = float(number_option(options, "temperature", o.temperature));
        o.top_k = int_option(options, "top_k", o.top_k);
        const double seed = number_option(options, "seed", 0);
        if (!(seed >= 0 && seed == std::floor(seed) && seed <= 9007199254740991.0))
            throw Error("option seed must be a whole number in [0, 2^53)");
        o.seed = uint64_t(seed);
        const std::string p = prefix ? prefix : "";
        const LmGeneration g = lm_generate(*m.network, m.encode_prefix(p), o);
        Result r;
        const std::string continuation = m.decode(g.ids);
        r.json = nlohmann::json{{"text", p + continuation},
                                {"continuation", continuation},
                                {"prefix_ids", g.prefix_ids},
                                {"ids", g.ids},
                                {"vocab_size", m.vocab.size()}}
                     .dump();
        for (const auto& d : g.distributions) r.floats.insert(r.floats.end(), d.begin(), d.end());
        const int h = g_next_handle++;
        g_results.emplace(h, std::move(r));
        return h;
    }, 0);
}

}  // extern "C"
