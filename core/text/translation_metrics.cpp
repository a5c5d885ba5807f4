#include "text/translation_metrics.h"

#include <cstdio>

#include "error.h"
#include "text/case_mapping.h"

namespace attend {

TranslationScores score_translations(const std::vector<std::string>& tokenized_hypotheses,
                                     const std::vector<std::string>& detokenized_hypotheses,
                                     const std::vector<std::string>& tokenized_references,
                                     const std::vector<std::string>& raw_references) {
    const std::size_t n = tokenized_hypotheses.size();
    auto require = [n](const std::vector<std::string>& lines, const char* what) {
        if (lines.size() != n)
            throw Error(std::string("translation scores: ") + std::to_string(n) + " tokenized hypotheses but " +
                        std::to_string(lines.size()) + " " + what + " (expected one a line each)");
    };
    require(detokenized_hypotheses, "detokenized hypotheses");
    require(tokenized_references, "tokenized references");
    require(raw_references, "raw references");
    TranslationScores scores;
    BleuOptions lowercased;
    lowercased.lowercase = true;
    scores.bleu = corpus_bleu(tokenized_hypotheses, tokenized_references, lowercased);
    BleuOptions cased_13a;
    cased_13a.tokenize = BleuTokenize::v13a;
    scores.cased_13a = corpus_bleu(detokenized_hypotheses, raw_references, cased_13a);
    scores.chrf = corpus_chrf(detokenized_hypotheses, raw_references);
    return scores;
}

std::string TranslationScores::format() const {
    char tail[128];
    std::snprintf(tail, sizeof tail, " | cased 13a BLEU = %.2f (BP = %.3f) | %s", cased_13a.score,
                  cased_13a.brevity_penalty, chrf.format().c_str());
    return bleu.format() + tail;
}


DetokenizedScores score_detokenized(const std::vector<std::string>& detokenized_hypotheses,
                                    const std::vector<std::string>& raw_references, BleuTokenize tokenize) {
    DetokenizedScores scores;
    scores.bleu_options.tokenize = tokenize;
    scores.bleu = corpus_bleu(detokenized_hypotheses, raw_references, scores.bleu_options);
    scores.chrf = corpus_chrf(detokenized_hypotheses, raw_references);
    return scores;
}

std::string DetokenizedScores::format() const {
    return bleu.format() + "\nBLEU|" + bleu_signature(bleu_options) + "\n" + chrf.format() + "\nchrF2|" +
           chrf_signature(bleu_options.lowercase);
}

}  // namespace attend
