// The d2l word pipeline (the seeds' preprocess_nmt + split on spaces): raw user text to model words, words back to
// the seeds' printed form, and its JSON in the model file.
#include <doctest/doctest.h>

#include "error.h"
#include "text/text_pipeline.h"

using namespace attend;

TEST_CASE("d2l-words pipeline: raw text -> the seeds' words, words -> text joined with spaces") {
    const TextPipeline en = d2l_words_pipeline(Lang::en), fr = d2l_words_pipeline(Lang::fr);
    using Words = std::vector<std::string>;
    CHECK(preprocess_for_model("Go.", en) == Words{"go", "."});
    CHECK(preprocess_for_model("go .", en) == Words{"go", "."});  // already preprocessed: unchanged
    CHECK(preprocess_for_model("I'm home.", en) == Words{"i'm", "home", "."});
    CHECK(preprocess_for_model("He's calm!", en) == Words{"he's", "calm", "!"});
    CHECK(preprocess_for_model("Qui\xE2\x80\xAF?", fr) == Words{"qui", "?"});       // narrow no-break space
    CHECK(preprocess_for_model("  Ça\xC2\xA0va,\tÉlodie?\n", fr) == Words{"ça", "va", ",", "élodie", "?"});
    CHECK(preprocess_for_model("   ", en).empty());
    CHECK_THROWS_AS(preprocess_for_model("bad \xFF byte", en), Error);

    CHECK(postprocess_for_display({"va", "!"}, fr) == "va !");
    CHECK(postprocess_for_display({"j'ai", "perdu", "."}, fr) == "j'ai perdu .");
    CHECK(postprocess_for_bleu({"je", "suis", "chez", "moi", "."}, fr) == "je suis chez moi .");
    CHECK(postprocess_for_display({}, fr).empty());
}

TEST_CASE("d2l-words pipeline: JSON round trip; an unknown type is named") {
    nlohmann::json j = d2l_words_pipeline(Lang::fr);
    CHECK(j == nlohmann::json{{"type", "d2l-words"}, {"lang", "fr"}});
    TextPipeline back = j.get<TextPipeline>();
    CHECK(back.type == TextPipelineType::d2l_words);
    CHECK(back.lang == Lang::fr);
    CHECK_FALSE(back.bpe.has_value());

    TextPipeline moses;  // the default stays moses+bpe
    CHECK(nlohmann::json(moses)["type"] == "moses+bpe");
    CHECK(nlohmann::json(moses).get<TextPipeline>().type == TextPipelineType::moses_bpe);

    CHECK_THROWS_WITH(nlohmann::json::parse(R"({"type": "wordpiece", "lang": "en"})").get<TextPipeline>(),
                      doctest::Contains("unknown type 'wordpiece'"));
    CHECK_THROWS_WITH(nlohmann::json::parse(R"({"lang": "en"})").get<TextPipeline>(), doctest::Contains("\"type\""));
    CHECK_THROWS_WITH(nlohmann::json::parse(R"({"type": "d2l-words"})").get<TextPipeline>(), doctest::Contains("'lang'"));
}
