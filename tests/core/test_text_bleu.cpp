#include <doctest/doctest.h>

#include <cmath>

#include "attend_version.h"
#include "error.h"
#include "text/bleu.h"
#include "text/chrf.h"
#include "text/tokenizer_13a.h"
#include "text/tokenizer_zh.h"
#include "text/translation_metrics.h"

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

TEST_CASE("corpus BLEU-4: clipping and the brevity penalty over a corpus, counted by hand") {
    //  "the the the cat" / "the cat sat on the mat": 1g the 3 -> 2 (clipped) + cat = 3/4; 2g "the the" x2 -> 0,
    //      "the cat" 1: 1/3; 3g 0/2; 4g 0/1
    //  "a dog runs" / "a dog runs fast":              1g 3/3, 2g 2/2, 3g 1/1, no 4-grams
    std::vector<std::string> hyp = {"the the the cat", "a dog runs"};
    std::vector<std::string> ref = {"the cat sat on the mat", "a dog runs fast"};
    CorpusBleu score = corpus_bleu(hyp, ref);
    CHECK(score.correct == std::array<std::int64_t, 4>{6, 3, 1, 0});
    CHECK(score.total == std::array<std::int64_t, 4>{7, 5, 3, 1});
    CHECK(score.hyp_len == 7);
    CHECK(score.ref_len == 10);
    const double bp = std::exp(1.0 - 10.0 / 7.0);
    CHECK(score.brevity_penalty == doctest::Approx(bp).epsilon(1e-12));
    // exp smoothing: the first order with no match counts 1/2 of a match
    CHECK(score.precisions[3] == doctest::Approx(50.0).epsilon(1e-12));
    const double expected = bp * std::exp((std::log(600.0 / 7) + std::log(60.0) + std::log(100.0 / 3) + std::log(50.0)) / 4);
    CHECK(score.score == doctest::Approx(expected).epsilon(1e-12));
    CHECK(corpus_bleu(hyp, ref, BleuSmoothing::none).score == 0.0);
}

TEST_CASE("sacreBLEU's 13a tokenizer on tricky strings") {
    struct Row {
        const char* raw;
        const char* tokenized;
    };
    const Row rows[] = {
        {"Hello, world!", "Hello , world !"},
        {"It's 3.5 km, e-mail me.", "It's 3.5 km , e-mail me ."},  // ' and - inside words stay; 3.5 stays whole
        {"1,000 people", "1,000 people"},                            // a digit on both sides of the comma
        {"pages 2-3 and 1999-2000", "pages 2 - 3 and 1999 - 2000"},  // - splits after a digit only
        {"&quot;Hi&quot; &amp; bye", "\" Hi \" & bye"},             // entities unescaped, then split
        {"&amp;lt;", "<"},                                           // unescaped in sequence, as str.replace does
        {"it&apos;s", "it & apos ; s"},                              // &apos; is not an entity to 13a
        {"a.b.c", "a . b . c"},
        {"1.a", "1 . a"},
        {"a.1", "a . 1"},
        {"3.", "3 ."},
        {"..", ". ."},
        {"Price: $5 (approx.)", "Price : $ 5 ( approx . )"},
        {"#1 @user ~/x C++ [a]{b}", "# 1 @ user ~ / x C + + [ a ] { b }"},
        {"Zwei Männer spielen Fußball.", "Zwei Männer spielen Fußball ."},
        {"l'homme «bonjour» — oui", "l'homme «bonjour» — oui"},    // non-ASCII punctuation is left alone
        {"a\xC2\xA0" "b\tc  d", "a b c d"},                          // Python's whitespace: no-break space too
        {"<skipped>foo", "foo"},
        {"  ", ""},
    };
    for (const Row& row : rows) {
        CAPTURE(row.raw);
        CHECK(tokenize_13a(row.raw) == row.tokenized);
    }
}

TEST_CASE("corpus BLEU with sacreBLEU's 13a tokenizer, cased and lowercased") {
    std::vector<std::string> hyp = {"Zwei Männer spielen Fußball."}, ref = {"zwei männer spielen fußball ."};
    BleuOptions cased;
    cased.tokenize = BleuTokenize::v13a;
    // Zwei Männer spielen Fußball . / zwei männer spielen fußball .: 1g 2/5 (spielen, .), no longer match
    CorpusBleu score = corpus_bleu(hyp, ref, cased);
    CHECK(score.correct == std::array<std::int64_t, 4>{2, 0, 0, 0});
    CHECK(score.total == std::array<std::int64_t, 4>{5, 4, 3, 2});
    CHECK(score.brevity_penalty == 1.0);
    const double expected = std::exp((std::log(40.0) + std::log(100.0 / (2 * 4)) + std::log(100.0 / (4 * 3)) +
                                      std::log(100.0 / (8 * 2))) / 4);
    CHECK(score.score == doctest::Approx(expected).epsilon(1e-12));
    BleuOptions lowercased = cased;
    lowercased.lowercase = true;
    CHECK(corpus_bleu(hyp, ref, lowercased).score == doctest::Approx(100.0));
    CHECK(bleu_preprocess("Fußball.", lowercased) == "fußball .");
    // Without tokenizing, "Fußball." is one token that matches nothing.
    BleuOptions untokenized;
    untokenized.lowercase = true;
    CHECK(corpus_bleu(hyp, ref, untokenized).correct[0] == 3);
    CHECK_THROWS_AS(corpus_bleu({"a"}, {"a", "b"}, cased), Error);
}

TEST_CASE("chrF2: identical text up to whitespace, effective orders only") {
    // "abc" both sides: 1-, 2- and 3-grams all match; no side has 4-grams, so those orders do not count
    CorpusChrf score = corpus_chrf({"ab c"}, {"abc"});
    CHECK(score.effective_order == 3);
    CHECK(score.score == doctest::Approx(100.0));
    CHECK(score.format() == "chrF2 = 100.00");
}

TEST_CASE("chrF2: clipped character n-gram matches, counted by hand") {
    // "aab" / "abb": 1g a 2 -> 1, b 1: 2 of 3 both ways; 2g ab: 1 of 2; 3g 0 of 1. P = R = (2/3 + 1/2 + 0) / 3
    CorpusChrf score = corpus_chrf({"aab"}, {"abb"});
    CHECK(score.match == std::array<std::int64_t, 6>{2, 1, 0, 0, 0, 0});
    CHECK(score.precision == doctest::Approx(7.0 / 18).epsilon(1e-12));
    CHECK(score.recall == doctest::Approx(7.0 / 18).epsilon(1e-12));
    CHECK(score.score == doctest::Approx(100.0 * 7 / 18).epsilon(1e-12));  // F of P = R is P
}

TEST_CASE("chrF2: statistics summed over the corpus, then beta = 2 weighs recall") {
    //  "ab" / "abcd": 1g 2 hyp, 4 ref, 2 match; 2g 1, 3, 1; 3g 0, 2; 4g 0, 1
    //  "xyz" / "x":   1g 3, 1, 1; the reference has no 2- or 3-grams, so the hypothesis' ones are not counted
    CorpusChrf score = corpus_chrf({"ab", "xyz"}, {"abcd", "x"});
    CHECK(score.hyp == std::array<std::int64_t, 6>{5, 1, 0, 0, 0, 0});
    CHECK(score.ref == std::array<std::int64_t, 6>{5, 3, 2, 1, 0, 0});
    CHECK(score.match == std::array<std::int64_t, 6>{3, 1, 0, 0, 0, 0});
    CHECK(score.effective_order == 2);
    const double p = (3.0 / 5 + 1.0) / 2, r = (3.0 / 5 + 1.0 / 3) / 2;
    CHECK(score.precision == doctest::Approx(p).epsilon(1e-12));
    CHECK(score.recall == doctest::Approx(r).epsilon(1e-12));
    CHECK(score.score == doctest::Approx(100.0 * 5 * p * r / (4 * p + r)).epsilon(1e-12));
    CHECK(score.score == doctest::Approx(100.0 * 28 / 55).epsilon(1e-12));
}

TEST_CASE("chrF2: characters are code points; empty and mismatched input") {
    CorpusChrf score = corpus_chrf({"Fußball"}, {"Fussball"});
    CHECK(score.hyp[0] == 7);
    CHECK(score.ref[0] == 8);
    CHECK(score.match[0] == 6);
    CHECK(corpus_chrf({""}, {"abc"}).score == 0.0);
    CHECK(corpus_chrf({"abc"}, {""}).score == 0.0);
    CHECK_THROWS_AS(corpus_chrf({"a"}, {"a", "b"}), Error);
    CHECK_THROWS_AS(corpus_chrf({"\xff"}, {"a"}), Error);
}

TEST_CASE("translation scores: a lowercase model loses cased BLEU, not lowercased tokenized BLEU") {
    const std::vector<std::string> tok_refs = {"zwei männer spielen fußball ."};
    const std::vector<std::string> raw_refs = {"Zwei Männer spielen Fußball."};
    // A cased model's output: its tokenized text is lowercased for the first score.
    TranslationScores cased = score_translations({"Zwei Männer spielen Fußball ."}, {"Zwei Männer spielen Fußball."},
                                                 tok_refs, raw_refs);
    CHECK(cased.bleu.score == doctest::Approx(100.0));
    CHECK(cased.cased_13a.score == doctest::Approx(100.0));
    CHECK(cased.chrf.score == doctest::Approx(100.0));
    // A lowercase model's output, first letter capitalized for display: 13a tokens "Zwei männer spielen fußball ."
    // match 3 of 5 words and no longer n-gram.
    TranslationScores lower = score_translations({"zwei männer spielen fußball ."}, {"Zwei männer spielen fußball."},
                                                 tok_refs, raw_refs);
    CHECK(lower.bleu.score == doctest::Approx(100.0));
    CHECK(lower.cased_13a.correct == std::array<std::int64_t, 4>{3, 0, 0, 0});
    const double expected = std::exp((std::log(60.0) + std::log(100.0 / 8) + std::log(100.0 / 12) + std::log(100.0 / 16)) / 4);
    CHECK(lower.cased_13a.score == doctest::Approx(expected).epsilon(1e-12));
    CHECK(lower.chrf.score == doctest::Approx(corpus_chrf({"Zwei männer spielen fußball."}, raw_refs).score));
    CHECK(lower.chrf.score < 100.0);
    char line[300];
    std::snprintf(line, sizeof line, "%s | cased 13a BLEU = %.2f (BP = 1.000) | chrF2 = %.2f", lower.bleu.format().c_str(),
                  expected, lower.chrf.score);
    CHECK(lower.format() == line);
    CHECK_THROWS_AS(score_translations({"a"}, {"a"}, {"a"}, {}), Error);
}

// Expected strings below are what sacreBLEU 2.6.0's TokenizerZh returns for the same input.
TEST_CASE("sacreBLEU's zh tokenizer: each Chinese character a token, then 13a's punctuation rules") {
    struct Row {
        const char* raw;
        const char* tokenized;
    };
    const Row rows[] = {
        {"我爱北京天安门。", "我 爱 北 京 天 安 门 。"},
        {"Hello,世界!", "Hello , 世 界 !"},                            // ASCII punctuation: 13a's rules
        {"e-mail中文,ok.", "e-mail 中 文 , ok ."},                      // ASCII words stay whole
        {"ＡＢＣ１２３，你好！", "Ａ Ｂ Ｃ １ ２ ３ ， 你 好 ！"},   // full-width forms: one token each
        {"（注）【重要】《书》", "（ 注 ） 【 重 要 】 《 书 》"},  // CJK and full-width brackets
        {"共3.5元，约1,000人", "共 3.5 元 ， 约 1,000 人"},          // ASCII digits: numbers stay whole
        {"2-3号", "2 - 3 号"},                                         // - after a digit splits, as in 13a
        {"Mr.王说:“3,5”", "Mr . 王 说 : “ 3,5 ”"},
        {"他说“好”——然后…", "他 说 “ 好 ” — — 然 后 …"},          // curly quotes, dashes, ellipsis split
        {"I ☺ u→v ≤ 3€", "I ☺ u → v ≤ 3 €"},                          // symbols of U+2001..U+2A6D too
        {"ひらがなカタカナｶﾀｶﾅ한국", "ひらがなカタカナ ｶ ﾀ ｶ ﾅ 한국"},  // kana, hangul: only half-width forms
        {"ㄅㄆ⺀", "ㄅ ㄆ ⺀"},                                        // bopomofo, CJK radicals
        {"  你好 \t", "你 好"},
        {"你\u3000好", "你 好"},                                       // ideographic space: whitespace
        {"a\u00a0中", "a 中"},
        // Unlike tokenize_13a, no space is added at the ends, so a number at either end keeps its . or ,
        {"价格是5.", "价 格 是 5."},
        {".5元", ".5 元"},
        // ... and nothing is unescaped or removed first.
        {"&quot;中&quot;", "& quot ; 中 & quot ;"},
        {"<skipped>中", "< skipped > 中"},
        {"", ""},
    };
    for (const Row& row : rows) {
        CAPTURE(row.raw);
        CHECK(tokenize_zh(row.raw) == row.tokenized);
    }
    CHECK(tokenize_13a("价格是5.") == "价格是5 .");  // the difference at the end of a line
    CHECK(tokenize_13a("我爱北京。") == "我爱北京。");  // and why Chinese needs its own tokenizer
    CHECK_THROWS_AS(tokenize_zh("\xff"), Error);
}

TEST_CASE("sacreBLEU's zh tokenizer: which code points count as Chinese, as Python reads its table") {
    // The table's blocks, at their edges.
    CHECK(is_sacrebleu_chinese(0x4E00));   // 一
    CHECK(is_sacrebleu_chinese(0x9FBB));
    CHECK_FALSE(is_sacrebleu_chinese(0x9FBC));
    CHECK(is_sacrebleu_chinese(0x3400));   // extension A
    CHECK(is_sacrebleu_chinese(0x4DB5));
    CHECK_FALSE(is_sacrebleu_chinese(0x4DB6));
    CHECK(is_sacrebleu_chinese(0xF900));   // compatibility ideographs
    CHECK_FALSE(is_sacrebleu_chinese(0xFA2E));
    CHECK(is_sacrebleu_chinese(0x3000));   // CJK symbols and punctuation: 、。「」
    CHECK(is_sacrebleu_chinese(0x303F));
    CHECK_FALSE(is_sacrebleu_chinese(0x3040));  // hiragana
    CHECK_FALSE(is_sacrebleu_chinese(0x30A2));  // katakana ア
    CHECK(is_sacrebleu_chinese(0xFF01));   // ！
    CHECK(is_sacrebleu_chinese(0xFFEF));
    CHECK_FALSE(is_sacrebleu_chinese(0xFFF0));
    CHECK_FALSE(is_sacrebleu_chinese(0xAC00));  // hangul 가
    // The two supplementary-plane entries, u'\u20000' and u'\u2f800', are two-character strings in Python: the
    // first admits U+2001..U+2A6D, the second falls inside the Kangxi radicals, and nothing above U+FFFF counts.
    CHECK_FALSE(is_sacrebleu_chinese(0x2000));
    CHECK(is_sacrebleu_chinese(0x2001));
    CHECK(is_sacrebleu_chinese(0x2014));   // —
    CHECK(is_sacrebleu_chinese(0x201C));   // “
    CHECK(is_sacrebleu_chinese(0x20AC));   // €
    CHECK(is_sacrebleu_chinese(0x2A6D));
    CHECK_FALSE(is_sacrebleu_chinese(0x2A6E));
    CHECK_FALSE(is_sacrebleu_chinese(0x20000));  // 𠀀, extension B
    CHECK_FALSE(is_sacrebleu_chinese(0x2F800));
    CHECK(tokenize_zh("a\U00020000b") == "a\U00020000b");
    // Nothing below U+2001 counts: ASCII, Latin, Greek, Cyrillic, Arabic, Devanagari...
    int below = 0;
    for (char32_t cp = 0; cp < 0x2001; ++cp) below += is_sacrebleu_chinese(cp) ? 1 : 0;
    CHECK(below == 0);
}

namespace {
const std::vector<std::string> kChineseHyp = {"我喜欢猫。", "今天天气很好", "我有3只猫"};
const std::vector<std::string> kChineseRef = {"我喜欢狗。", "今天天气好。", "我有3只猫和1只狗"};
}  // namespace

TEST_CASE("corpus BLEU with the zh tokenizer on a Chinese set, counted by hand") {
    // Each character is a token:
    //  我 喜 欢 猫 。 / 我 喜 欢 狗 。:            1g 4/5 (我 喜 欢 。), 2g 2/4 (我喜 喜欢), 3g 1/3, 4g 0/2
    //  今 天 天 气 很 好 / 今 天 天 气 好 。:       1g 5/6 (天 twice), 2g 3/5 (今天 天天 天气), 3g 2/4, 4g 1/3
    //  我 有 3 只 猫 / 我 有 3 只 猫 和 1 只 狗:   1g 5/5, 2g 4/4, 3g 3/3, 4g 2/2
    // Sums: 14/16, 9/13, 6/10, 3/7; hyp_len 16, ref_len 5 + 6 + 9 = 20, so BP = exp(1 - 20/16) = exp(-0.25).
    // (sacreBLEU 2.6.0, tokenize=zh: BLEU = 48.93 87.5/69.2/60.0/42.9 (BP = 0.779 ratio = 0.800 ...))
    BleuOptions zh;
    zh.tokenize = BleuTokenize::zh;
    const CorpusBleu score = corpus_bleu(kChineseHyp, kChineseRef, zh);
    CHECK(score.correct == std::array<std::int64_t, 4>{14, 9, 6, 3});
    CHECK(score.total == std::array<std::int64_t, 4>{16, 13, 10, 7});
    CHECK(score.hyp_len == 16);
    CHECK(score.ref_len == 20);
    const double bp = std::exp(-0.25);
    const double expected = 100.0 * bp * std::pow(14.0 / 16 * 9.0 / 13 * 6.0 / 10 * 3.0 / 7, 0.25);
    CHECK(score.brevity_penalty == doctest::Approx(bp).epsilon(1e-12));
    CHECK(score.score == doctest::Approx(expected).epsilon(1e-12));
    CHECK(score.format() == "BLEU = 48.93 87.5/69.2/60.0/42.9 (BP = 0.779 ratio = 0.800 hyp_len = 16 ref_len = 20)");
    CHECK(bleu_preprocess("我有3只猫", zh) == "我 有 3 只 猫");
    // With 13a each line is a single token, and none matches; with no match at all sacreBLEU does not smooth,
    // so every precision shows as 0.
    BleuOptions v13a;
    v13a.tokenize = BleuTokenize::v13a;
    const CorpusBleu unsplit = corpus_bleu(kChineseHyp, kChineseRef, v13a);
    CHECK(unsplit.correct == std::array<std::int64_t, 4>{0, 0, 0, 0});
    CHECK(unsplit.format() == "BLEU = 0.00 0.0/0.0/0.0/0.0 (BP = 1.000 ratio = 1.000 hyp_len = 3 ref_len = 3)");
}

TEST_CASE("chrF2 of a Chinese set, counted by hand") {
    // Character n-grams (hyp, ref, matches) for n = 1..6:
    //  我喜欢猫。 / 我喜欢狗。:          (5,5,4) (4,4,2) (3,3,1) (2,2,0) (1,1,0) (0,0,0)
    //  今天天气很好 / 今天天气好。:      (6,6,5) (5,5,3) (4,4,2) (3,3,1) (2,2,0) (1,1,0)
    //  我有3只猫 / 我有3只猫和1只狗:     (5,9,5) (4,8,4) (3,7,3) (2,6,2) (1,5,1) (0,4,0)
    // Sums: hyp 16 13 10 7 4 1, ref 20 17 14 11 8 5, matches 14 9 6 3 1 0: all six orders count.
    // P = (14/16 + 9/13 + 6/10 + 3/7 + 1/4 + 0/1) / 6, R = (14/20 + 9/17 + 6/14 + 3/11 + 1/8 + 0/5) / 6,
    // chrF2 = 100 * 5PR / (4P + R)  (sacreBLEU 2.6.0: chrF2 = 36.28)
    const CorpusChrf score = corpus_chrf(kChineseHyp, kChineseRef);
    CHECK(score.hyp == std::array<std::int64_t, 6>{16, 13, 10, 7, 4, 1});
    CHECK(score.ref == std::array<std::int64_t, 6>{20, 17, 14, 11, 8, 5});
    CHECK(score.match == std::array<std::int64_t, 6>{14, 9, 6, 3, 1, 0});
    CHECK(score.effective_order == 6);
    const double p = (14.0 / 16 + 9.0 / 13 + 6.0 / 10 + 3.0 / 7 + 1.0 / 4) / 6;
    const double r = (14.0 / 20 + 9.0 / 17 + 6.0 / 14 + 3.0 / 11 + 1.0 / 8) / 6;
    CHECK(score.precision == doctest::Approx(p).epsilon(1e-12));
    CHECK(score.recall == doctest::Approx(r).epsilon(1e-12));
    CHECK(score.score == doctest::Approx(100.0 * 5 * p * r / (4 * p + r)).epsilon(1e-12));
    CHECK(score.format() == "chrF2 = 36.28");
}

TEST_CASE("signatures: sacreBLEU 2.x's keys in its order, Attend's version in place of sacreBLEU's") {
    const std::string version = "version:attend-" + std::string(kAttendVersion);
    CHECK(metrics_version() == "attend-" + std::string(kAttendVersion));
    BleuOptions options;
    options.tokenize = BleuTokenize::v13a;
    CHECK(bleu_signature(options) == "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|" + version);
    options.tokenize = BleuTokenize::zh;
    CHECK(bleu_signature(options) == "nrefs:1|case:mixed|eff:no|tok:zh|smooth:exp|" + version);
    options.tokenize = BleuTokenize::none;
    options.lowercase = true;
    options.smoothing = BleuSmoothing::none;
    CHECK(bleu_signature(options) == "nrefs:1|case:lc|eff:no|tok:none|smooth:none|" + version);
    CHECK(chrf_signature(false) == "nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|" + version);
    CHECK(chrf_signature(true) == "nrefs:1|case:lc|eff:yes|nc:6|nw:0|space:no|" + version);
}

TEST_CASE("BLEU tokenizers by name, and the default one for a target language") {
    for (BleuTokenize t : {BleuTokenize::none, BleuTokenize::v13a, BleuTokenize::zh})
        CHECK(parse_bleu_tokenize(bleu_tokenize_name(t)) == t);
    CHECK(bleu_tokenize_name(BleuTokenize::v13a) == "13a");
    CHECK_THROWS_WITH_AS(parse_bleu_tokenize("intl"), "unknown BLEU tokenizer 'intl' (expected none, 13a or zh)", Error);
    for (const char* chinese : {"zh", "ZH", "zh-TW", "zh-Hans", "zh_CN", "cmn", "cmn-Hans", "zho", "chi"}) {
        CAPTURE(chinese);
        CHECK(default_bleu_tokenize(chinese) == BleuTokenize::zh);
    }
    for (const char* other : {"en", "de", "fr", "ja", "ko", "zu", "zha", "", "z"}) {
        CAPTURE(other);
        CHECK(default_bleu_tokenize(other) == BleuTokenize::v13a);
    }
}

TEST_CASE("translation scores of a test set without tokenized references: BLEU and chrF2, each with its signature") {
    const DetokenizedScores scores = score_detokenized(kChineseHyp, kChineseRef, BleuTokenize::zh);
    CHECK(scores.bleu.correct == std::array<std::int64_t, 4>{14, 9, 6, 3});
    const std::string version = "version:attend-" + std::string(kAttendVersion);
    CHECK(scores.format() ==
          "BLEU = 48.93 87.5/69.2/60.0/42.9 (BP = 0.779 ratio = 0.800 hyp_len = 16 ref_len = 20)\n"
          "BLEU|nrefs:1|case:mixed|eff:no|tok:zh|smooth:exp|" + version + "\n"
          "chrF2 = 36.28\n"
          "chrF2|nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|" + version);
    CHECK_THROWS_AS(score_detokenized({"a"}, {"a", "b"}, BleuTokenize::v13a), Error);
}
