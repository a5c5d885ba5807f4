#include "text/text_pipeline.h"

#include "error.h"
#include "text/bpe.h"
#include "text/d2l_preprocess.h"
#include "text/detokenizer.h"
#include "text/bleu.h"
#include "text/tokenizer_13a.h"
#include "text/utf8.h"

namespace attend {

namespace {

constexpr const char* kMosesBpe = "moses+bpe";
constexpr const char* kD2lWords = "d2l-words";
constexpr const char* kSentencePiece = "sentencepiece";

std::string join_spaces(const std::vector<std::string>& words) {
    std::string line;
    for (const std::string& w : words) line += (line.empty() ? "" : " ") + w;
    return line;
}

// Brackets and bars are rare in captions: Moses escapes them (&#91; &#93; &#124;), and a BPE that never learned
// those escapes spells each in five pieces ("&@@ #@@ 9@@ 1@@ ;") the model never read together, which it
// translates as noise ("Nummer Neun"). Such a token is read as a comma, which sets a phrase off as they do and
// which every caption model knows (parentheses are rare in captions too, and read as noise as well). An escape the
// BPE keeps whole (a model trained on text with brackets) is left as it is.
void replace_unlearned_escapes(std::vector<std::string>& tokens, const Bpe& bpe) {
    static const std::pair<const char*, const char*> kStandIns[] = {{"&#91;", ","}, {"&#93;", ","}, {"&#124;", ","}};
    for (const auto& [escape, stand_in] : kStandIns) {
        bool present = false;
        for (const std::string& t : tokens) present = present || t == escape;
        if (!present || bpe.encode_word(escape).size() == 1) continue;
        for (std::string& t : tokens)
            if (t == escape) t = stand_in;
    }
}

// The training captions hold HTML text ("Tom &amp; Jerry"): Moses split it as "&amp; amp ;", and a model trained on
// them writes those three tokens for "&" (and likewise for the other entities). They read as the one character
// the caption meant, before the detokenizer unescapes the rest.
std::vector<std::string> join_split_entities(const std::vector<std::string>& words) {
    static const std::pair<const char*, const char*> kEntities[] = {
        {"amp", "&amp;"}, {"quot", "&quot;"}, {"apos", "&apos;"}, {"lt", "&lt;"}, {"gt", "&gt;"}};
    std::vector<std::string> out;
    out.reserve(words.size());
    for (std::size_t i = 0; i < words.size(); i++) {
        const std::string* joined = nullptr;
        if ((words[i] == "&amp;" || words[i] == "&") && i + 2 < words.size() && words[i + 2] == ";")
            for (const auto& [name, entity] : kEntities)
                if (words[i + 1] == name) joined = &out.emplace_back(entity);
        if (joined)
            i += 2;
        else
            out.push_back(words[i]);
    }
    return out;
}

}  // namespace

TextPipeline d2l_words_pipeline(Lang lang) {
    TextPipeline p;
    p.type = TextPipelineType::d2l_words;
    p.lang = lang;
    return p;
}

std::string language_code(const TextPipeline& pipeline) {
    return pipeline.type == TextPipelineType::sentencepiece ? pipeline.language : lang_code(pipeline.lang);
}

TextPipeline sentencepiece_pipeline(const std::string& language, std::shared_ptr<const SentencePieceModel> model) {
    check_language_code(language);
    if (!model || model->size() == 0) throw Error("sentencepiece pipeline: no subword model");
    TextPipeline p;
    p.type = TextPipelineType::sentencepiece;
    p.language = language;
    p.sentencepiece = std::move(model);
    return p;
}

std::string visible_text(std::string_view raw_text) {
    utf8_validate(raw_text, "the text");
    std::string out;
    out.reserve(raw_text.size());
    for (std::size_t i = 0; i < raw_text.size(); i++) {
        const unsigned char b = static_cast<unsigned char>(raw_text[i]);
        if (b < 0x20 || b == 0x7F) {
            out += ' ';
        } else if (b == 0xEF && raw_text.compare(i, 3, "\xEF\xBB\xBF") == 0) {
            i += 2;  // U+FEFF
        } else if (b == 0xE2 && (raw_text.compare(i, 3, "\xE2\x80\x8B") == 0 || raw_text.compare(i, 3, "\xE2\x81\xA0") == 0)) {
            i += 2;  // U+200B, U+2060
        } else {
            out += static_cast<char>(b);
        }
    }
    return out;
}

std::string subword_text(std::string_view raw_text) {
    // What every translator reads, and then every other space, line or paragraph separator as a plain space.
    const std::string visible = visible_text(raw_text);
    std::string out;
    out.reserve(visible.size());
    for (std::size_t i = 0; i < visible.size();) {
        const unsigned char b = static_cast<unsigned char>(visible[i]);
        if (b < 0x80) {  // ASCII: the common case, one byte at a time
            out += static_cast<char>(b);
            i++;
            continue;
        }
        const std::size_t n = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : 2;
        const char32_t cp = utf8_decode(visible.substr(i, n))[0];
        i += n;
        if ((cp >= 0x80 && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029 || is_python_space(cp)) out += ' ';
        else utf8_append(out, cp);
    }
    return out;
}

std::string bleu_tokenized(std::string_view raw_text, const TextPipeline& pipeline) {
    if (pipeline.type != TextPipelineType::sentencepiece) return std::string(raw_text);
    BleuOptions options;
    options.tokenize = default_bleu_tokenize(pipeline.language);
    return bleu_preprocess(std::string(raw_text), options);
}

std::vector<std::string> preprocess_for_model(std::string_view raw_text, const TextPipeline& pipeline) {
    if (pipeline.type == TextPipelineType::sentencepiece) return pipeline.sentencepiece->encode_pieces(subword_text(raw_text));
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
    if (!pipeline.bpe) return tokens;
    if (pipeline.moses.tokenize.escape_xml) replace_unlearned_escapes(tokens, *pipeline.bpe);
    return pipeline.bpe->apply(tokens);
}

std::string postprocess_for_display(const std::vector<std::string>& model_tokens, const TextPipeline& pipeline) {
    if (pipeline.type == TextPipelineType::sentencepiece) return pipeline.sentencepiece->decode_pieces(model_tokens);
    if (pipeline.type == TextPipelineType::d2l_words) return join_spaces(model_tokens);
    std::vector<std::string> words = pipeline.bpe ? undo_bpe(model_tokens) : model_tokens;
    if (pipeline.moses.tokenize.escape_xml) words = join_split_entities(words);
    DetokenizeOptions options;
    options.unescape_xml = pipeline.moses.tokenize.escape_xml;
    return detokenize(words, pipeline.lang, options);
}

std::string postprocess_for_bleu(const std::vector<std::string>& model_tokens, const TextPipeline& pipeline) {
    if (pipeline.type == TextPipelineType::sentencepiece)
        return bleu_tokenized(postprocess_for_display(model_tokens, pipeline), pipeline);
    return join_spaces(pipeline.bpe ? undo_bpe(model_tokens) : model_tokens);
}

void to_json(nlohmann::json& j, const TextPipeline& pipeline) {
    if (pipeline.type == TextPipelineType::sentencepiece) {
        j = nlohmann::json{{"type", kSentencePiece}, {"lang", pipeline.language}, {"model", *pipeline.sentencepiece}};
        return;
    }
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
        throw Error("tokenizer description: expected an object with a \"type\" (\"moses+bpe\", \"d2l-words\" or "
                    "\"sentencepiece\")");
    const std::string type = j["type"].get<std::string>();
    if (type != kMosesBpe && type != kD2lWords && type != kSentencePiece)
        throw Error("tokenizer description: unknown type '" + type +
                    "' (expected \"moses+bpe\", \"d2l-words\" or \"sentencepiece\")");
    const auto flag = [&](const char* key, bool fallback) {
        if (!j.contains(key)) return fallback;
        if (!j[key].is_boolean()) throw Error(std::string("tokenizer description: '") + key + "' is not a boolean");
        return j[key].get<bool>();
    };
    if (!j.contains("lang") || !j["lang"].is_string()) throw Error("tokenizer description: 'lang' is missing");
    pipeline = TextPipeline();
    if (type == kSentencePiece) {
        if (!j.contains("model") || !j["model"].is_object())
            throw Error("tokenizer description: a sentencepiece pipeline needs its \"model\" (an object)");
        auto model = std::make_shared<SentencePieceModel>(j["model"].get<SentencePieceModel>());
        try {
            pipeline = sentencepiece_pipeline(j["lang"].get<std::string>(), std::move(model));
        } catch (const Error& e) {
            throw Error(std::string("tokenizer description: ") + e.what());
        }
        return;
    }
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
