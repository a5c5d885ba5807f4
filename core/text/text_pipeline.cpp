#include "text/text_pipeline.h"

#include "error.h"
#include "text/bpe.h"
#include "text/d2l_preprocess.h"
#include "text/detokenizer.h"

namespace attend {

namespace {

constexpr const char* kMosesBpe = "moses+bpe";
constexpr const char* kD2lWords = "d2l-words";

std::string join_spaces(const std::vector<std::string>& words) {
    std::string line;
    for (const std::string& w : words) line += (line.empty() ? "" : " ") + w;
    return line;
}

}  // namespace

TextPipeline d2l_words_pipeline(Lang lang) {
    TextPipeline p;
    p.type = TextPipelineType::d2l_words;
    p.lang = lang;
    return p;
}

std::vector<std::string> preprocess_for_model(std::string_view raw_text, const TextPipeline& pipeline) {
    if (pipeline.type == TextPipelineType::d2l_words) {
        // The training data never holds two spaces in a row; user text may, or tabs and newlines: a run of
        // whitespace separates two words and none becomes an empty word.
        std::vector<std::string> words;
        std::string word;
        for (char c : preprocess_nmt(raw_text)) {
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                if (!word.empty()) words.push_back(std::move(word));
                word.clear();
            } else {
                word += c;
            }
        }
        if (!word.empty()) words.push_back(std::move(word));
        return words;
    }
    std::vector<std::string> tokens = moses_preprocess(raw_text, pipeline.lang, pipeline.prefixes, pipeline.moses);
    return pipeline.bpe ? pipeline.bpe->apply(tokens) : tokens;
}

std::string postprocess_for_display(const std::vector<std::string>& model_tokens, const TextPipeline& pipeline) {
    if (pipeline.type == TextPipelineType::d2l_words) return join_spaces(model_tokens);
    std::vector<std::string> words = pipeline.bpe ? undo_bpe(model_tokens) : model_tokens;
    DetokenizeOptions options;
    options.unescape_xml = pipeline.moses.tokenize.escape_xml;
    return detokenize(words, pipeline.lang, options);
}

std::string postprocess_for_bleu(const std::vector<std::string>& model_tokens, const TextPipeline& pipeline) {
    return join_spaces(pipeline.bpe ? undo_bpe(model_tokens) : model_tokens);
}

void to_json(nlohmann::json& j, const TextPipeline& pipeline) {
    if (pipeline.type == TextPipelineType::d2l_words) {
        j = nlohmann::json{{"type", kD2lWords}, {"lang", lang_code(pipeline.lang)}};
        return;
    }
    j = nlohmann::json{{"type", kMosesBpe},
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
    if (!j.is_object() || !j.contains("type") || !j["type"].is_string())
        throw Error("tokenizer description: expected an object with a \"type\" (\"moses+bpe\" or \"d2l-words\")");
    const std::string type = j["type"].get<std::string>();
    if (type != kMosesBpe && type != kD2lWords)
        throw Error("tokenizer description: unknown type '" + type + "' (expected \"moses+bpe\" or \"d2l-words\")");
    const auto flag = [&](const char* key, bool fallback) {
        if (!j.contains(key)) return fallback;
        if (!j[key].is_boolean()) throw Error(std::string("tokenizer description: '") + key + "' is not a boolean");
        return j[key].get<bool>();
    };
    if (!j.contains("lang") || !j["lang"].is_string()) throw Error("tokenizer description: 'lang' is missing");
    pipeline = TextPipeline();
    pipeline.lang = parse_lang(j["lang"].get<std::string>());
    if (type == kD2lWords) {
        pipeline.type = TextPipelineType::d2l_words;
        return;
    }
    pipeline.moses.lowercase = flag("lowercase", true);
    pipeline.moses.normalize_punctuation = flag("normalize_punctuation", true);
    pipeline.moses.tokenize.escape_xml = flag("escape_xml", true);
    pipeline.moses.tokenize.aggressive_hyphen_splitting = flag("aggressive_hyphen_splitting", false);
    if (j.contains("nonbreaking_prefixes")) pipeline.prefixes = j["nonbreaking_prefixes"].get<NonbreakingPrefixes>();
    if (j.contains("bpe") && !j["bpe"].is_null()) pipeline.bpe = j["bpe"].get<Bpe>();
}

}  // namespace attend
