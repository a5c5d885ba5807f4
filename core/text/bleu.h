// BLEU two ways:
//  - bleu(pred, label, k): the seeds' (d2l) sentence score, brevity exp(min(0, 1 - len_label/len_pred)) times
//    the n-gram precisions p_n^(0.5^n), n = 1..k, on tokens split at single spaces;
//  - corpus_bleu: BLEU-4 as multi-bleu.perl / sacreBLEU compute it: clipped n-gram counts summed over the
//    corpus, brevity penalty on the total lengths, one reference per hypothesis. Two ways to score are in use:
//    BLEU on lowercased, Moses-tokenized text (what the Multi30K literature reports: tokenize none on the
//    official tok/ files), and sacreBLEU's default, cased BLEU with the 13a tokenizer on detokenized text
//    against the raw references.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attend {

// d2l's bleu. Where Python divides by zero (a prediction shorter than k tokens), the precision counts as
// 0, so the score is 0.
double bleu(std::string_view pred, std::string_view label, int k);
double bleu(const std::vector<std::string>& pred_tokens, const std::vector<std::string>& label_tokens, int k);

enum class BleuSmoothing {
    exp,   // sacreBLEU's default: a zero n-gram match count counts as 1/2^m (m-th such order)
    none,  // multi-bleu.perl: any zero match count gives BLEU 0
};

struct CorpusBleu {
    double score = 0;                      // 0..100
    std::array<double, 4> precisions{};    // percent
    std::array<std::int64_t, 4> correct{}, total{};
    double brevity_penalty = 0, ratio = 0;
    std::int64_t hyp_len = 0, ref_len = 0;
    // "BLEU = 41.02 72.3/48.5/34.2/24.4 (BP = 0.986 ratio = 0.986 hyp_len = 12000 ref_len = 12172)"
    std::string format() const;
};

// Lines are whitespace-tokenized (tokenize=none); hypotheses and references must have the same count
// (attend::Error otherwise).
CorpusBleu corpus_bleu(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references,
                       BleuSmoothing smoothing = BleuSmoothing::exp);

enum class BleuTokenize {
    none,  // split at whitespace: the lines are already tokenized
    v13a,  // sacreBLEU's default (text/tokenizer_13a.h), for detokenized lines
    zh,    // sacreBLEU's for Chinese (text/tokenizer_zh.h): each Chinese character a token, then 13a's rules
};

// sacreBLEU's names, as --tokenize takes them and signatures show them: "none", "13a", "zh".
std::string bleu_tokenize_name(BleuTokenize tokenize);
// The inverse; anything else throws attend::Error naming the value and the known names.
BleuTokenize parse_bleu_tokenize(std::string_view name);

// The tokenizer for detokenized text in this target language, as sacreBLEU picks it from -l: zh for Chinese
// ("zh", "zho", "chi", "cmn", with or without a region or script subtag such as "zh-TW", "zh_Hans"; any case),
// 13a for every other language (its rules only split ASCII punctuation, so they do no harm to other scripts).
BleuTokenize default_bleu_tokenize(const std::string& language_code);

struct BleuOptions {
    BleuTokenize tokenize = BleuTokenize::none;
    bool lowercase = false;  // both sides, before tokenizing (sacreBLEU -lc)
    BleuSmoothing smoothing = BleuSmoothing::exp;
};

CorpusBleu corpus_bleu(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references,
                       const BleuOptions& options);

// What corpus_bleu scores for one line under these options: lowercased and/or tokenized.
std::string bleu_preprocess(const std::string& line, const BleuOptions& options);

// sacreBLEU 2.x's signature of a corpus BLEU computed with these options against one reference, its keys in
// its order, with Attend's version in place of sacreBLEU's (scores are only comparable with the same
// implementation): "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:attend-0.1.0".
std::string bleu_signature(const BleuOptions& options);

// "attend-0.1.0": the version field of the signatures.
std::string metrics_version();

}  // namespace attend
