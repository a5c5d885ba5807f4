#include <doctest/doctest.h>

#include <cmath>

#include "error.h"
#include "text/bleu.h"

using namespace attend;

TEST_CASE("bleu: the seeds' sentence scores") {
    CHECK(bleu("il est mouillé .", "il est calme .", 2) == doctest::Approx(0.658).epsilon(0.0005));
    CHECK(bleu("il est riche .", "il est calme .", 2) == doctest::Approx(0.658).epsilon(0.0005));
    CHECK(bleu("va !", "va !", 2) == 1.0);
    CHECK(bleu("j'ai perdu .", "j'ai perdu .", 2) == 1.0);
    CHECK(bleu("je suis chez moi .", "je suis chez moi .", 2) == 1.0);
    // exactly: p1 = 3/4, p2 = 1/3 ("il est" of three bigrams), no brevity penalty
    CHECK(bleu("il est mouillé .", "il est calme .", 2) == doctest::Approx(std::pow(0.75, 0.5) * std::pow(1.0 / 3, 0.25)));
}

TEST_CASE("bleu: d2l's A B B C D against A B C D E F (p1=4/5, p2=3/4, p3=1/3, p4=0)") {
    const double brevity = std::exp(1.0 - 6.0 / 5.0);
    const double expected3 = brevity * std::pow(4.0 / 5, 0.5) * std::pow(3.0 / 4, 0.25) * std::pow(1.0 / 3, 0.125);
    CHECK(bleu("A B B C D", "A B C D E F", 3) == doctest::Approx(expected3).epsilon(1e-12));
    CHECK(bleu("A B B C D", "A B C D E F", 4) == 0.0);
    CHECK(bleu("A B B C D", "A B C D E F", 1) == doctest::Approx(brevity * std::sqrt(0.8)).epsilon(1e-12));
    CHECK(bleu("A", "A B", 2) == 0.0);  // shorter than k: Python divides by zero, here the precision is 0
    CHECK_THROWS_AS(bleu("A", "A", 0), Error);
}

TEST_CASE("corpus BLEU-4: clipped counts summed over the corpus, brevity on total lengths") {
    // Counts worked by hand:
    //  "the cat sat on the mat" / "the cat is on the mat": 1g 5/6, 2g 3/5, 3g 1/4, 4g 0/3
    //  "a dog runs very fast" / same:                      1g 5/5, 2g 4/4, 3g 3/3, 4g 2/2
    //  "the cat" / "the cat sat down":                     1g 2/2, 2g 1/1, no 3- or 4-grams
    std::vector<std::string> hyp = {"the cat sat on the mat", "a dog runs very fast", "the cat"};
    std::vector<std::string> ref = {"the cat is on the mat", "a dog runs very fast", "the cat sat down"};
    CorpusBleu score = corpus_bleu(hyp, ref);
    CHECK(score.correct == std::array<std::int64_t, 4>{12, 8, 4, 2});
    CHECK(score.total == std::array<std::int64_t, 4>{13, 10, 7, 5});
    CHECK(score.hyp_len == 13);
    CHECK(score.ref_len == 15);
    const double bp = std::exp(1.0 - 15.0 / 13.0);
    const double expected = 100.0 * bp * std::pow(12.0 / 13 * 8.0 / 10 * 4.0 / 7 * 2.0 / 5, 0.25);
    CHECK(score.brevity_penalty == doctest::Approx(bp).epsilon(1e-12));
    CHECK(score.ratio == doctest::Approx(13.0 / 15.0).epsilon(1e-12));
    CHECK(score.score == doctest::Approx(expected).epsilon(1e-12));
    CHECK(score.precisions[0] == doctest::Approx(100.0 * 12 / 13).epsilon(1e-12));
    char line[200];
    std::snprintf(line, sizeof line, "BLEU = %.2f 92.3/80.0/57.1/40.0 (BP = %.3f ratio = 0.867 hyp_len = 13 ref_len = 15)",
                  expected, bp);
    CHECK(score.format() == line);
}

TEST_CASE("corpus BLEU-4: zero 4-gram matches, sacreBLEU's exp smoothing against multi-bleu's zero") {
    std::vector<std::string> hyp = {"the cat sat on the mat"}, ref = {"the cat is on the mat"};
    CorpusBleu smoothed = corpus_bleu(hyp, ref, BleuSmoothing::exp);
    CHECK(smoothed.precisions[3] == doctest::Approx(100.0 / (2 * 3)).epsilon(1e-12));
    CHECK(smoothed.score == doctest::Approx(100.0 * std::pow(5.0 / 6 * 3.0 / 5 * 1.0 / 4 * 1.0 / 6, 0.25)).epsilon(1e-12));
    CHECK(corpus_bleu(hyp, ref, BleuSmoothing::none).score == 0.0);
    CHECK(corpus_bleu({"x y z w"}, {"x y z w"}).score == doctest::Approx(100.0));
    CHECK(corpus_bleu({""}, {"a b"}).score == 0.0);
    CHECK_THROWS_AS(corpus_bleu({"a"}, {"a", "b"}), Error);
}
