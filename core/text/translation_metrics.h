// The three scores a translation of a test set gets, as `attend eval` reports them:
//   - BLEU-4 on lowercased, Moses-tokenized text against the official tokenized lowercase references (what
//     the Multi30K literature reports); a cased model's tokenized output is lowercased first;
//   - cased BLEU with sacreBLEU's default 13a tokenizer on the detokenized output against the raw references
//     (what sacreBLEU reports, and what a reader of the output sees: a lowercase model scores low here);
//   - chrF2 (sacreBLEU's default chrF) on the same detokenized output and raw references.
#pragma once
#include <string>
#include <vector>

#include "text/bleu.h"
#include "text/chrf.h"

namespace attend {

struct TranslationScores {
    CorpusBleu bleu;        // lowercased tokenized
    CorpusBleu cased_13a;   // cased, 13a on detokenized text
    CorpusChrf chrf;        // chrF2 on detokenized text
    // "BLEU = 39.40 72.3/48.5/34.2/24.4 (BP = 0.986 ratio = 0.986 hyp_len = 12000 ref_len = 12172)
    //  | cased 13a BLEU = 8.50 (BP = 0.990) | chrF2 = 55.12" (one line)
    std::string format() const;
};

// The scores of a translation of any test set, which has raw references only: cased BLEU with the target
// language's tokenizer (default_bleu_tokenize, or the one asked for) and chrF2, both on the detokenized output.
struct DetokenizedScores {
    BleuOptions bleu_options;
    CorpusBleu bleu;
    CorpusChrf chrf;
    // Four lines, each score line followed by its metric's name and sacreBLEU-style signature:
    // "BLEU = 30.12 61.0/36.2/23.5/15.7 (BP = 1.000 ratio = 1.012 hyp_len = 12140 ref_len = 11996)\n"
    // "BLEU|nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:attend-0.1.0\n"
    // "chrF2 = 55.12\n"
    // "chrF2|nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:attend-0.1.0" (no newline at the end)
    std::string format() const;
};

// Line-aligned (attend::Error otherwise).
DetokenizedScores score_detokenized(const std::vector<std::string>& detokenized_hypotheses,
                                    const std::vector<std::string>& raw_references, BleuTokenize tokenize);

// All four lists line-aligned (attend::Error names the one that is not).
TranslationScores score_translations(const std::vector<std::string>& tokenized_hypotheses,
                                     const std::vector<std::string>& detokenized_hypotheses,
                                     const std::vector<std::string>& tokenized_references,
                                     const std::vector<std::string>& raw_references);

}  // namespace attend
