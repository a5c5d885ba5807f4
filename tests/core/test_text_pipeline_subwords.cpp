// The sentencepiece text pipeline (text/text_pipeline.h): what it reads of raw text (one cleaning step, the same for
// training text and user text), pieces back to text, BLEU's view of a sentence in any language, the model file's
// description of it, and the language codes it accepts.
#include <doctest/doctest.h>

#include "error.h"
#include "text/lang.h"
#include "text/text_pipeline.h"

#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

using namespace attend;

namespace {

using Piece = SentencePieceModel::Piece;
using Type = SentencePieceModel::PieceType;

std::shared_ptr<const SentencePieceModel> small_model() {
    std::vector<Piece> pieces = {{"<unk>", 0, Type::unknown}, {"<pad>", 0, Type::control},
                                 {"<bos>", 0, Type::control}, {"<eos>", 0, Type::control}};
    char hex[8];
    for (int b = 0; b < 256; b++) {
        std::snprintf(hex, sizeof hex, "<0x%02X>", b);
        pieces.push_back({hex, 0, Type::byte});
    }
    float score = -1;
    for (const char* p : {"\u2581", "\u2581I", "\u2581like", "\u2581fish", ".", "\u6211", "\u559C\u6B22", "\u5403", "\u9C7C"})
        pieces.push_back({p, score -= 0.25f, Type::normal});
    return std::make_shared<const SentencePieceModel>(SentencePieceModel::Options{}, pieces);
}

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "(accepted)";
}

}  // namespace

TEST_CASE("subword text: invisible characters go, controls and Unicode spaces become spaces, the rest is kept") {
    CHECK(subword_text("\xEF\xBB\xBF" "A dog runs.") == "A dog runs.");            // a byte-order mark
    CHECK(subword_text("A\xE2\x80\x8B" "dog") == "Adog");                        // a zero-width space
    CHECK(subword_text("a\xE2\x81\xA0" "b") == "ab");                            // a word joiner
    CHECK(subword_text(std::string("A man\0 walks.", 13)) == "A man  walks.");  // NUL is a space, not an end
    CHECK(subword_text("a\tb\nc\rd") == "a b c d");
    CHECK(subword_text("a\xC2\xA0" "b\xE3\x80\x80" "c") == "a b c");            // NBSP, ideographic space
    CHECK(subword_text("\xC2\x85") == " ");                                      // a C1 control (NEL)
    CHECK(subword_text("我喜欢吃鱼。Ünïcödé 🐟") == "我喜欢吃鱼。Ünïcödé 🐟");
    CHECK(error_of([] { subword_text("bad \xff byte"); }).find("invalid UTF-8") != std::string::npos);
}

TEST_CASE("a sentencepiece pipeline: raw text to pieces and back, the same text whatever invisible marks it held") {
    const TextPipeline p = sentencepiece_pipeline("zh", small_model());
    CHECK(language_code(p) == "zh");
    CHECK(preprocess_for_model("我喜欢吃鱼", p) == std::vector<std::string>{"\u2581", "\u6211", "\u559C\u6B22", "\u5403", "\u9C7C"});
    CHECK(preprocess_for_model("\xEF\xBB\xBF我喜欢吃鱼", p) == preprocess_for_model("我喜欢吃鱼", p));
    CHECK(postprocess_for_display(preprocess_for_model("  我喜欢\t吃鱼  ", p), p) == "我喜欢 吃鱼");
    // A character without a piece is spelt in bytes and comes back whole.
    const std::vector<std::string> bytes = preprocess_for_model("鱻", p);
    CHECK(bytes == std::vector<std::string>{"\u2581", "<0xE9>", "<0xB1>", "<0xBB>"});
    CHECK(postprocess_for_display(bytes, p) == "鱻");
}

TEST_CASE("BLEU's view of a subword model's output: sacreBLEU's tokenizer for the language") {
    const TextPipeline en = sentencepiece_pipeline("en", small_model());
    const TextPipeline zh = sentencepiece_pipeline("zh", small_model());
    CHECK(bleu_tokenized("I like fish.", en) == "I like fish .");         // 13a
    CHECK(bleu_tokenized("我喜欢吃鱼。", zh) == "我 喜 欢 吃 鱼 。");        // zh: a character a token
    CHECK(postprocess_for_bleu({"\u2581I", "\u2581like", "\u2581fish", "."}, en) == "I like fish .");
}

TEST_CASE("the model file's description of a sentencepiece pipeline reads back exactly, and is checked") {
    const TextPipeline p = sentencepiece_pipeline("zh-Hans", small_model());
    const nlohmann::json j = p;
    CHECK(j["type"] == "sentencepiece");
    CHECK(j["lang"] == "zh-Hans");
    const TextPipeline back = j.get<TextPipeline>();
    CHECK(back.type == TextPipelineType::sentencepiece);
    CHECK(*back.sentencepiece == *p.sentencepiece);
    CHECK(nlohmann::json(back) == j);

    nlohmann::json no_model = j;
    no_model.erase("model");
    CHECK(error_of([&] { no_model.get<TextPipeline>(); }).find("needs its \"model\"") != std::string::npos);
    nlohmann::json bad_lang = j;
    bad_lang["lang"] = "Chinese";
    CHECK(error_of([&] { bad_lang.get<TextPipeline>(); }).find("language code 'Chinese'") != std::string::npos);
    nlohmann::json bad_piece = j;
    bad_piece["model"]["pieces"][0][2] = "normal";  // id 0 must be the unknown piece
    CHECK(error_of([&] { bad_piece.get<TextPipeline>(); }) != "(accepted)");
}

TEST_CASE("language codes: ISO 639 letters with optional subtags; unspaced scripts known") {
    for (const char* ok : {"en", "zh", "cmn", "pt-BR", "zh-Hans", "sr-Latn-RS"}) CHECK_NOTHROW(check_language_code(ok));
    for (const char* bad : {"", "e", "english", "EN", "zh_CN", "zh-", "zh-x", "de-123456789", "en de"})
        CHECK_THROWS_AS(check_language_code(bad), Error);
    CHECK(is_unspaced_language("zh"));
    CHECK(is_unspaced_language("zh-TW"));
    CHECK(is_unspaced_language("ja"));
    CHECK(is_unspaced_language("th"));
    CHECK_FALSE(is_unspaced_language("en"));
    CHECK_FALSE(is_unspaced_language("ko"));
}

TEST_CASE("visible text: what every translator reads; marks that do not show go, controls become spaces") {
    CHECK(visible_text("\xEF\xBB\xBF" "A dog runs.") == "A dog runs.");
    CHECK(visible_text(std::string("A man\0 walks.", 13)) == "A man  walks.");
    CHECK(visible_text("zero\xE2\x80\x8Bwidth\xE2\x81\xA0joined") == "zerowidthjoined");
    CHECK(visible_text("a\tb\x7F" "c") == "a b c");
    CHECK(visible_text("a\xC2\xA0" "b 我") == "a\xC2\xA0" "b 我");  // a no-break space is for the pipeline to read
    CHECK_THROWS_AS(visible_text("\xff"), Error);
}
