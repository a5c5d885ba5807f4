// The moses+bpe pipeline around Moses's XML escapes: what a model trained on escaped captions reads of a bracket or
// a bar, and what its "&amp; amp ;" (the captions' HTML "&amp;", split by Moses) reads as.
#include <doctest/doctest.h>

#include "text/text_pipeline.h"

using namespace attend;

namespace {

using Tokens = std::vector<std::string>;

TextPipeline moses_bpe(Lang lang, const std::vector<std::string>& training_lines, int merges) {
    TextPipeline p;
    p.lang = lang;
    p.moses.lowercase = false;
    p.bpe = Bpe::learn(count_words(training_lines), merges, 1);
    return p;
}

bool contains(const Tokens& tokens, const std::string& token) {
    return std::find(tokens.begin(), tokens.end(), token) != tokens.end();
}

}  // namespace

TEST_CASE("moses+bpe: a bracket or bar whose escape the BPE never learned is read as a comma, not as its pieces") {
    const TextPipeline en = moses_bpe(Lang::en, {"a man waves , smiling , a woman ."}, 200);
    const Tokens tokens = preprocess_for_model("A man waves [smiling] | a woman.", en);
    for (const std::string& t : tokens) {
        CHECK_MESSAGE(t.find('&') == std::string::npos, t);
        CHECK_MESSAGE(t.find('#') == std::string::npos, t);
    }
    CHECK(undo_bpe(tokens) == Tokens{"A", "man", "waves", ",", "smiling", ",", ",", "a", "woman", "."});
    // The ampersand's escape is one token of this BPE's text only when it learned it: here it did not, and "&"
    // has no stand-in: it stays the escape the model may know as a word of its vocabulary.
    const Tokens amp = preprocess_for_model("A boy & a girl.", en);
    CHECK(undo_bpe(amp) == Tokens{"A", "boy", "&amp;", "a", "girl", "."});
}

TEST_CASE("moses+bpe: an escape the BPE learned whole is read as it is") {
    const TextPipeline en = moses_bpe(Lang::en, {"a man &#91; smiling &#93; &#124; a woman ."}, 200);
    REQUIRE(en.bpe->encode_word("&#91;").size() == 1);
    const Tokens tokens = preprocess_for_model("A man [smiling] | a woman.", en);
    CHECK(contains(tokens, "&#91;"));
    CHECK(contains(tokens, "&#93;"));
    CHECK(contains(tokens, "&#124;"));
}

TEST_CASE("moses+bpe: an entity split as Moses splits HTML text reads as its character, the rest as before") {
    const TextPipeline de = moses_bpe(Lang::de, {"ein junge ."}, 10);
    // What a Multi30K model writes for "A boy & a girl play in the park." (its training captions hold "&amp;").
    CHECK(postprocess_for_display({"Ein", "Junge", "&amp;", "amp", ";", "ein", "Mädchen", "spielen", "im", "Park", "."},
                                  de) == "Ein Junge & ein Mädchen spielen im Park.");
    const TextPipeline en = moses_bpe(Lang::en, {"a boy ."}, 10);
    CHECK(postprocess_for_display({"He", "says", "&amp;", "quot", ";", "hello", "&amp;", "quot", ";", "."}, en) ==
          "He says \"hello\".");
    // BPE pieces of the name ("am@@ p") are words once joined.
    CHECK(postprocess_for_display({"Tom", "&amp;", "am@@", "p", ";", "Jerry"}, de) == "Tom & Jerry");
    // An escape on its own, and a semicolon that ends no entity, are as before.
    CHECK(postprocess_for_display({"Tom", "&amp;", "Jerry", "."}, de) == "Tom & Jerry.");
    CHECK(postprocess_for_display({"A", ";", "amp", ";", "b"}, de) == "A; amp; b");
    CHECK(postprocess_for_display({"A", "&amp;", "amp"}, de) == "A & amp");
}
