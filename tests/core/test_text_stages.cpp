// The reversible text stages (translate/text_stage.h): each one's prepare and restore around an identity
// "translation" (the text the model would read, written back as it is, aligned word for word) give the text back.
#include <doctest/doctest.h>

#include "text/case_mapping.h"
#include "translate/text_stage.h"

#include <string>
#include <vector>

using namespace attend;

namespace {

// What the search would give for a model that writes back what it reads: the text, and its words as tokens.
TranslationResult identity_translation(const std::string& text) {
    TranslationResult r;
    r.text = r.tokenized = text;
    for (size_t i = 0; i < text.size();) {
        const size_t end = std::min(text.find(' ', i), text.size());
        if (end > i) r.source_tokens.push_back(text.substr(i, end - i));
        i = end + 1;
    }
    r.target_tokens = r.source_tokens;
    r.source_tokens.push_back("</s>");
    r.target_tokens.push_back("</s>");
    return r;
}

// Word k of the source is word k of the translation.
std::optional<WordAlignment> identity_alignment(const TranslationResult&, int words) {
    WordAlignment a{std::vector<int>(words), std::vector<int>(words)};
    for (int k = 0; k < words; k++) a.first[k] = a.last[k] = k;
    return a;
}

// A cased en -> en model of whole words: the copy-through placeholders in both vocabularies, and the words of the tests.
TranslatorModel words_model() {
    TranslatorModel m;
    std::vector<std::string> tokens = {"<unk>", "<pad>", "<bos>", "<eos>", "dog", "horse", "ball", "boat", "Obama",
                                       "Seattle", "Miami", "Boston", "Visit", "with", "at", "is", "playing", "."};
    m.source_vocab = m.target_vocab = Vocab::from_id_order(tokens);
    m.source_pipeline.lang = m.target_pipeline.lang = Lang::en;
    m.source_pipeline.moses.lowercase = m.target_pipeline.moses.lowercase = false;  // cased: names are masked
    return m;
}

}  // namespace

TEST_CASE("text stages: recasing reads a text in capitals in sentence case and writes its translation in capitals") {
    const RecasingStage stage;
    const TranslationOptions options;
    const StageContext context{options, identity_alignment};
    const Staged<RecasingStage::State> shouted = stage.prepare("A DOG RUNS ON THE BEACH.");
    REQUIRE(shouted.state);
    CHECK(shouted.text == "A dog runs on the beach.");
    TranslationResult r = identity_translation(shouted.text);
    stage.restore(r, *shouted.state, context);
    CHECK(r.text == "A DOG RUNS ON THE BEACH.");
    // Mixed case and a lone acronym are not in capitals: nothing to restore.
    for (const char* text : {"A dog runs.", "STOP!", "The USA and the UK."}) {
        const Staged<RecasingStage::State> as_is = stage.prepare(text);
        CHECK_FALSE(as_is.state);
        CHECK(as_is.text == text);
    }
}

TEST_CASE("text stages: markup, pictographs and references come back around the words they marked") {
    const MarkupStage stage;
    const TranslationOptions options;
    const StageContext context{options, identity_alignment};
    for (const std::string text :
         {"<b>A dog</b> runs on the <i>beach</i>.", "A dog 🐶 runs on the beach. 🌊", "**Two** dogs play with a `ball`.",
          "<p>A man in a <a href=\"https://example.org\">red</a> hat.</p>", "Tom &amp; Jerry <em>run</em>."}) {
        CAPTURE(text);
        bool only_markup = true;
        const Staged<MarkupStage::State> taken = stage.prepare(text, only_markup);
        CHECK_FALSE(only_markup);
        REQUIRE(taken.state);
        CHECK(taken.text.find('<') == std::string::npos);
        TranslationResult r = identity_translation(taken.text);
        stage.restore(r, *taken.state, context);
        CHECK(r.text == text);
    }
    // The model reads "&" for "&amp;" and the translation writes it back as HTML.
    bool only_markup = true;
    CHECK(stage.prepare("Tom &amp; Jerry <em>run</em>.", only_markup).text == "Tom & Jerry run.");
    // Plain text is left as it is; markup alone leaves nothing to translate.
    const Staged<MarkupStage::State> plain = stage.prepare("A dog runs.", only_markup);
    CHECK_FALSE(plain.state);
    CHECK_FALSE(only_markup);
    CHECK(plain.text == "A dog runs.");
    const Staged<MarkupStage::State> tags = stage.prepare("<p><br></p>", only_markup);
    CHECK_FALSE(tags.state);
    CHECK(only_markup);
    CHECK(tags.text == "<p><br></p>");
}

TEST_CASE("text stages: copy-through masks spans and names, and puts them back in the text and the tokens") {
    const TranslatorModel model = words_model();
    const CopyThroughStage stage(model);
    const TranslationOptions options;
    const StageContext context{options, identity_alignment};
    const std::string text = "Visit www.example.com with Carlos at 10:45 .";
    const Staged<CopyThroughStage::State> masked = stage.prepare(text);
    REQUIRE(masked.state);
    CHECK(masked.text == "Visit dog with Obama at horse .");
    CHECK(masked.state->read == text);
    CHECK(stage.names_kept(masked.text, *masked.state));
    TranslationResult r = identity_translation(masked.text);
    stage.restore(r, *masked.state, context);
    CHECK(r.text == text);
    CHECK(r.tokenized == text);
    const std::vector<std::string> tokens = {"Visit", "www.example.com", "with", "Carlos", "at", "10:45", "."};
    CHECK(std::vector<std::string>(r.source_tokens.begin(), r.source_tokens.end() - 1) == tokens);
    CHECK(std::vector<std::string>(r.target_tokens.begin(), r.target_tokens.end() - 1) == tokens);
    // A translation that lost the name: the other names in turn, each masking the same spans.
    CHECK_FALSE(stage.names_kept("Visit dog with at horse .", *masked.state));
    REQUIRE(stage.name_turns() == default_name_placeholders().size());
    const std::optional<CopyThroughStage::State> turned = stage.with_names_turned(*masked.state, 1);
    REQUIRE(turned);
    CHECK(turned->masked.text == "Visit dog with Seattle at horse .");
    CHECK(turned->read == text);
    // An untranslated text gets its tokens back, not a restored translation; a text without spans has no state.
    TranslationResult untranslated = identity_translation(masked.text);
    untranslated.untranslated = true;
    stage.restore(untranslated, *masked.state, context);
    CHECK(untranslated.text == masked.text);
    CHECK(untranslated.source_tokens[1] == "www.example.com");
    CHECK_FALSE(stage.prepare("A dog is playing .").state);
}

TEST_CASE("text stages: the three in a row, restored in reverse, give a text in capitals with markup and spans back") {
    const TranslatorModel model = words_model();
    const RecasingStage recasing;
    const MarkupStage markup;
    const CopyThroughStage copy_through(model);
    const TranslationOptions options;
    const StageContext context{options, identity_alignment};
    const std::string text = "VISIT <B>WWW.EXAMPLE.COM</B> AT 10:45 !";
    const Staged<RecasingStage::State> recased = recasing.prepare(text);
    bool only_markup = false;
    const Staged<MarkupStage::State> taken = markup.prepare(recased.text, only_markup);
    const Staged<CopyThroughStage::State> masked = copy_through.prepare(taken.text);
    REQUIRE(recased.state);
    REQUIRE(taken.state);
    REQUIRE(masked.state);
    CHECK(masked.text == "Visit dog at horse !");
    TranslationResult r = identity_translation(masked.text);
    copy_through.restore(r, *masked.state, context);
    markup.restore(r, *taken.state, context);
    recasing.restore(r, *recased.state, context);
    CHECK(r.text == text);
}
