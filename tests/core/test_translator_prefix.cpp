// A target prefix and each position's alternatives (TranslationOptions::target_prefix, alternatives) on a
// shipped model (web/models/): what the demo page does when a user picks another word and asks for the rest anew.
// Nothing here depends on a float comparison that another instruction set could turn: the alternatives are checked
// for what holds of any distribution, and a re-translation is compared with the first one only where both searches
// computed the same numbers in the same order.
#include <doctest/doctest.h>

#include "error.h"
#include "translate/translator.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

using namespace attend;

namespace {

const Translator& en_de() {
    static const Translator t = [] {
        const std::string path = std::string(ATTEND_SOURCE_DIR) + "/web/models/multi30k-en-de-cased.safetensors";
        std::ifstream in(path, std::ios::binary);
        REQUIRE_MESSAGE(in.good(), "cannot open " << path);
        return Translator::from_bytes({std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()}, path);
    }();
    return t;
}

const std::vector<std::string> kSentences = {"A dog runs on the beach.", "Two young girls are playing in the park.",
                                              "A man in a red jacket rides a bicycle down the street."};

TranslationOptions options(int beam, int alternatives = 5) {
    TranslationOptions o = en_de().default_options();
    o.beam_size = beam;
    o.alternatives = alternatives;
    return o;
}

// What holds of any position's alternatives: one per target token, probabilities in (0, 1], most probable first,
// summing to at most 1, the token's own probability among them where it is listed.
void check_alternatives(const TranslationResult& r, int k) {
    REQUIRE(r.alternatives.size() == r.target_ids.size());
    for (size_t t = 0; t < r.alternatives.size(); t++) {
        const TokenAlternatives& a = r.alternatives[t];
        CAPTURE(t);
        CHECK(a.token == en_de().model().target_vocab.token(r.target_ids[t]));
        CHECK(a.tokens.size() == static_cast<size_t>(k));
        REQUIRE(a.ids.size() == a.tokens.size());
        REQUIRE(a.probabilities.size() == a.tokens.size());
        double sum = 0;
        for (size_t j = 0; j < a.tokens.size(); j++) {
            CHECK(a.probabilities[j] > 0.0f);
            CHECK(a.probabilities[j] <= 1.0f);
            if (j > 0) CHECK(a.probabilities[j] <= a.probabilities[j - 1]);
            CHECK(a.tokens[j] == en_de().model().target_vocab.token(a.ids[j]));
            if (a.ids[j] == r.target_ids[t]) CHECK(a.probability == a.probabilities[j]);
            sum += a.probabilities[j];
        }
        CHECK(sum <= 1.0 + 1e-5);
        CHECK(a.probability > 0.0f);
        CHECK(a.probability <= 1.0f);
    }
}

// The target tokens the user keeps before position t, and alternative j of position t.
std::vector<std::string> kept_with(const TranslationResult& r, size_t t, size_t j) {
    std::vector<std::string> prefix;
    for (size_t i = 0; i < t; i++) prefix.push_back(r.alternatives[i].token);
    prefix.push_back(r.alternatives[t].tokens[j]);
    return prefix;
}

}  // namespace

TEST_CASE("greedy search's alternatives: its token first, then the rest of the distribution in order") {
    for (const std::string& s : kSentences) {
        CAPTURE(s);
        const TranslationResult r = en_de().translate(s, options(1));
        check_alternatives(r, 5);
        for (size_t t = 0; t < r.alternatives.size(); t++) {
            CHECK(r.alternatives[t].ids[0] == r.target_ids[t]);
            CHECK(r.alternatives[t].probability == r.alternatives[t].probabilities[0]);
        }
        // The confidence is the geometric mean of the tokens' probabilities.
        double log_sum = 0;
        for (const TokenAlternatives& a : r.alternatives) log_sum += std::log(static_cast<double>(a.probability));
        CHECK(r.log_prob == doctest::Approx(log_sum).epsilon(1e-4));
        // Without the option there are none, and the translation is the same.
        const TranslationResult plain = en_de().translate(s, options(1, 0));
        CHECK(plain.alternatives.empty());
        CHECK(plain.target_ids == r.target_ids);
    }
}

TEST_CASE("beam search's alternatives are those of its best hypothesis' own path") {
    for (const std::string& s : kSentences) {
        CAPTURE(s);
        const TranslationResult r = en_de().translate(s, options(5, 3));
        check_alternatives(r, 3);
        CHECK(r.target_ids == en_de().translate(s, options(5, 0)).target_ids);
    }
}

TEST_CASE("a re-translation from a chosen alternative begins with the kept tokens and that alternative") {
    for (int beam : {1, 5}) {
        for (const std::string& s : kSentences) {
            const TranslationResult first = en_de().translate(s, options(beam));
            for (size_t t : {size_t{0}, size_t{2}, first.alternatives.size() / 2}) {
                // The second most probable token there that is not <eos>.
                size_t j = 1;
                while (j < first.alternatives[t].tokens.size() && first.alternatives[t].tokens[j] == "<eos>") j++;
                REQUIRE(j < first.alternatives[t].tokens.size());
                TranslationOptions o = options(beam);
                o.target_prefix = kept_with(first, t, j);
                const TranslationResult again = en_de().translate(s, o);
                CAPTURE(s);
                CAPTURE(beam);
                CAPTURE(t);
                REQUIRE(again.target_tokens.size() > o.target_prefix.size());
                CHECK(std::equal(o.target_prefix.begin(), o.target_prefix.end(), again.target_tokens.begin()));
                check_alternatives(again, 5);
                // The kept positions were computed from the same tokens as the first time: the same distributions.
                if (beam == 1)
                    for (size_t i = 0; i < o.target_prefix.size(); i++) {
                        CHECK(again.alternatives[i].ids == first.alternatives[i].ids);
                        CHECK(again.alternatives[i].probabilities == first.alternatives[i].probabilities);
                    }
                // The chosen token's probability is the one the first translation listed (beam search computed
                // it among other hypotheses, in a wider product that may round otherwise).
                CHECK(again.alternatives[t].probability ==
                      doctest::Approx(first.alternatives[t].probabilities[j]).epsilon(1e-4));
            }
        }
    }
}

TEST_CASE("greedy search from its own first tokens gives its translation again") {
    const TranslationResult first = en_de().translate(kSentences[2], options(1));
    for (size_t t = 0; t + 1 < first.alternatives.size(); t += 3) {
        TranslationOptions o = options(1);
        o.target_prefix = kept_with(first, t, 0);
        const TranslationResult again = en_de().translate(kSentences[2], o);
        CAPTURE(t);
        CHECK(again.target_ids == first.target_ids);
        CHECK(again.text == first.text);
    }
}

TEST_CASE("a prefix of whole words shows in the text, and the prefix begins a document's first sentence only") {
    TranslationOptions o = options(5, 0);
    o.target_prefix = {"Zwei", "Hunde"};
    const TranslationResult r = en_de().translate(kSentences[0], o);
    CHECK(r.text.rfind("Zwei Hunde ", 0) == 0);

    const std::string doc_text = kSentences[0] + " " + kSentences[1];
    const DocumentTranslation doc = en_de().translate_document(doc_text, o);
    REQUIRE(doc.sentences.size() == 2);
    CHECK(doc.sentences[0].result.target_ids == r.target_ids);
    CHECK(doc.sentences[1].result.target_ids == en_de().translate(kSentences[1], options(5, 0)).target_ids);

    // In a batch, every sentence begins with it, as each would alone.
    o.beam_size = 1;
    const std::vector<TranslationResult> batch = en_de().translate_batch(kSentences, o);
    for (size_t i = 0; i < kSentences.size(); i++) {
        CAPTURE(i);
        CHECK(batch[i].target_tokens[0] == "Zwei");
        CHECK(batch[i].target_tokens[1] == "Hunde");
        CHECK(batch[i].target_ids == en_de().translate(kSentences[i], o).target_ids);
    }
}

TEST_CASE("a bad prefix or alternatives count is refused with an error that names it") {
    TranslationOptions o = options(1);
    o.target_prefix = {"Ein", "Hnudxq"};
    CHECK_THROWS_WITH(en_de().translate(kSentences[0], o),
                      "target prefix token 2, \"Hnudxq\", is not in the model's target vocabulary");
    o.target_prefix = {"Ein", "<eos>"};
    CHECK_THROWS_WITH(en_de().translate(kSentences[0], o), doctest::Contains("ends a translation"));
    o.target_prefix = {"Ein", std::string("\xC3\x28", 2)};
    CHECK_THROWS_WITH(en_de().translate(kSentences[0], o), "target prefix token 2 is not valid UTF-8");
    o.target_prefix = {""};
    CHECK_THROWS_WITH(en_de().translate(kSentences[0], o), "target prefix token 1 is empty");
    // Longer than the length limit allows for this source (2 x 8 tokens + 10).
    o.target_prefix = std::vector<std::string>(40, "Hund");
    CHECK_THROWS_WITH(en_de().translate(kSentences[0], o), doctest::Contains("the target prefix is 40 tokens long"));
    o.target_prefix = std::vector<std::string>(kMaxDecodingLength, "Hund");
    CHECK_THROWS_WITH(validate_options(o), doctest::Contains("at most 4095"));
    o.target_prefix.clear();
    o.alternatives = kMaxAlternatives + 1;
    CHECK_THROWS_WITH(validate_options(o), "alternatives must be between 0 and 100, got 101");
}
