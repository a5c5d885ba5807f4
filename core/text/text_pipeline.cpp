#include "text/text_pipeline.h"

#include "error.h"
#include "text/detokenizer.h"

namespace attend {

std::vector<std::string> preprocess_for_model(std::string_view raw_text, const TextPipeline& pipeline) {
    std::vector<std::string> tokens = moses_preprocess(raw_text, pipeline.lang, pipeline.prefixes, pipeline.moses);
    return pipeline.bpe ? pipeline.bpe->apply(tokens) : tokens;
}

std::string postprocess_for_display(const std::vector<std::string>& model_tokens, const TextPipeline& pipeline) {
    std::vector<std::string> words = pipeline.bpe ? undo_bpe(model_tokens) : model_tokens;
    DetokenizeOptions options;
    options.unescape_xml = pipeline.moses.tokenize.escape_xml;
    return detokenize(words, pipeline.lang, options);
}

void to_json(nlohmann::json& j, const TextPipeline& pipeline) {
    j = nlohmann::json{{"type", "moses+bpe"},
                       {"lang", lang_code(pipeline.lang)},
                       {"lowercase", pipeline.moses.lowercase},
                       {"normalize_punctuation", pipeline.moses.normalize_punctuation},
                       {"escape_xml", pipeline.moses.tokenize.escape_xml},
                       {"aggressive_hyphen_splitting", pipeline.moses.tokenize.aggressive_hyphen_splitting},
                       {"nonbreaking_prefixes", pipeline.prefixes}};
    if (pipeline.bpe)
        j["bpe"] = *pipeline.bpe;
    else
        j["bpe"] = nullptr;
}

void from_json(const nlohmann::json& j, TextPipeline& pipeline) {
    if (!j.is_object() || j.value("type", std::string()) != "moses+bpe")
        throw Error("tokenizer description: expected an object with \"type\": \"moses+bpe\"");
    const auto flag = [&](const char* key, bool fallback) {
        if (!j.contains(key)) return fallback;
        if (!j[key].is_boolean()) throw Error(std::string("tokenizer description: '") + key + "' is not a boolean");
        return j[key].get<bool>();
    };
    if (!j.contains("lang") || !j["lang"].is_string()) throw Error("tokenizer description: 'lang' is missing");
    pipeline = TextPipeline();
    pipeline.lang = parse_lang(j["lang"].get<std::string>());
    pipeline.moses.lowercase = flag("lowercase", true);
    pipeline.moses.normalize_punctuation = flag("normalize_punctuation", true);
    pipeline.moses.tokenize.escape_xml = flag("escape_xml", true);
    pipeline.moses.tokenize.aggressive_hyphen_splitting = flag("aggressive_hyphen_splitting", false);
    if (j.contains("nonbreaking_prefixes")) pipeline.prefixes = j["nonbreaking_prefixes"].get<NonbreakingPrefixes>();
    if (j.contains("bpe") && !j["bpe"].is_null()) pipeline.bpe = j["bpe"].get<Bpe>();
}

}  // namespace attend
