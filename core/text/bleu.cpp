#include "text/bleu.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_map>

#include "attend_version.h"
#include "error.h"
#include "text/case_mapping.h"
#include "text/d2l_preprocess.h"
#include "text/tokenizer_13a.h"
#include "text/tokenizer_zh.h"

namespace attend {
namespace {

// Python's str.split(): runs of whitespace separate, no empty fields.
std::vector<std::string> split_on_whitespace(std::string_view text) {
    std::vector<std::string> fields;
    std::size_t i = 0;
    const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
    while (i < text.size()) {
        while (i < text.size() && space(text[i])) ++i;
        std::size_t start = i;
        while (i < text.size() && !space(text[i])) ++i;
        if (i > start) fields.emplace_back(text.substr(start, i - start));
    }
    return fields;
}

std::string ngram_key(const std::vector<std::string>& tokens, std::size_t start, int n) {
    std::string key;
    for (int k = 0; k < n; ++k) {
        if (k) key.push_back('\x1f');  // a separator that cannot occur inside a token
        key += tokens[start + k];
    }
    return key;
}

}  // namespace

double bleu(const std::vector<std::string>& pred, const std::vector<std::string>& label, int k) {
    if (k < 1) throw Error("bleu: k is " + std::to_string(k) + " (expected k >= 1)");
    const double len_pred = static_cast<double>(pred.size()), len_label = static_cast<double>(label.size());
    if (pred.empty()) return 0.0;
    double score = std::exp(std::min(0.0, 1.0 - len_label / len_pred));
    for (int n = 1; n <= k; ++n) {
        std::unordered_map<std::string, int> label_subs;
        for (int i = 0; i + n <= static_cast<int>(label.size()); ++i) ++label_subs[ngram_key(label, i, n)];
        int num_matches = 0;
        for (int i = 0; i + n <= static_cast<int>(pred.size()); ++i) {
            auto it = label_subs.find(ngram_key(pred, i, n));
            if (it != label_subs.end() && it->second > 0) {
                ++num_matches;
                --it->second;
            }
        }
        const int pred_ngrams = static_cast<int>(pred.size()) - n + 1;
        if (pred_ngrams <= 0) return 0.0;
        score *= std::pow(static_cast<double>(num_matches) / pred_ngrams, std::pow(0.5, n));
    }
    return score;
}

double bleu(std::string_view pred, std::string_view label, int k) {
    return bleu(split_words(pred), split_words(label), k);  // d2l splits on single spaces
}

CorpusBleu corpus_bleu(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references,
                       BleuSmoothing smoothing) {
    if (hypotheses.size() != references.size())
        throw Error("corpus BLEU: " + std::to_string(hypotheses.size()) + " hypotheses but " +
                    std::to_string(references.size()) + " references (expected one reference per hypothesis)");
    CorpusBleu result;
    for (std::size_t s = 0; s < hypotheses.size(); ++s) {
        std::vector<std::string> hyp = split_on_whitespace(hypotheses[s]);
        std::vector<std::string> ref = split_on_whitespace(references[s]);
        result.hyp_len += static_cast<std::int64_t>(hyp.size());
        result.ref_len += static_cast<std::int64_t>(ref.size());
        for (int n = 1; n <= 4; ++n) {
            std::unordered_map<std::string, int> ref_counts, hyp_counts;
            for (int i = 0; i + n <= static_cast<int>(ref.size()); ++i) ++ref_counts[ngram_key(ref, i, n)];
            for (int i = 0; i + n <= static_cast<int>(hyp.size()); ++i) ++hyp_counts[ngram_key(hyp, i, n)];
            for (const auto& [ngram, count] : hyp_counts) {
                auto it = ref_counts.find(ngram);
                if (it != ref_counts.end()) result.correct[n - 1] += std::min(count, it->second);
            }
            result.total[n - 1] += std::max(0, static_cast<int>(hyp.size()) - n + 1);
        }
    }
    double log_sum = 0;
    double smooth = 1;
    bool zero = false;
    // sacreBLEU stops before smoothing when no n-gram of any order matches: every precision shows as 0.
    const bool no_match = std::all_of(result.correct.begin(), result.correct.end(), [](std::int64_t c) { return c == 0; });
    for (int n = 0; n < 4 && !no_match; ++n) {
        double precision = 0;
        if (result.total[n] > 0) {
            if (result.correct[n] > 0) {
                precision = 100.0 * static_cast<double>(result.correct[n]) / static_cast<double>(result.total[n]);
            } else if (smoothing == BleuSmoothing::exp) {
                smooth *= 2;
                precision = 100.0 / (smooth * static_cast<double>(result.total[n]));
            }
        }
        result.precisions[n] = precision;
        if (precision <= 0) zero = true;
        else log_sum += std::log(precision);
    }
    if (result.hyp_len == 0) {
        result.brevity_penalty = 0;
    } else if (result.hyp_len < result.ref_len) {
        result.brevity_penalty = std::exp(1.0 - static_cast<double>(result.ref_len) / static_cast<double>(result.hyp_len));
    } else {
        result.brevity_penalty = 1.0;
    }
    result.ratio = result.ref_len > 0 ? static_cast<double>(result.hyp_len) / static_cast<double>(result.ref_len) : 0;
    result.score = zero || no_match ? 0.0 : result.brevity_penalty * std::exp(log_sum / 4.0);
    return result;
}

std::string bleu_preprocess(const std::string& line, const BleuOptions& options) {
    std::string out = options.lowercase ? lowercase(line) : line;
    switch (options.tokenize) {
        case BleuTokenize::v13a: return tokenize_13a(out);
        case BleuTokenize::zh: return tokenize_zh(out);
        case BleuTokenize::none: break;
    }
    return out;
}

std::string bleu_tokenize_name(BleuTokenize tokenize) {
    switch (tokenize) {
        case BleuTokenize::none: return "none";
        case BleuTokenize::v13a: return "13a";
        case BleuTokenize::zh: return "zh";
    }
    return "none";
}

BleuTokenize parse_bleu_tokenize(std::string_view name) {
    for (BleuTokenize t : {BleuTokenize::none, BleuTokenize::v13a, BleuTokenize::zh})
        if (name == bleu_tokenize_name(t)) return t;
    throw Error("unknown BLEU tokenizer '" + std::string(name) + "' (expected none, 13a or zh)");
}

BleuTokenize default_bleu_tokenize(const std::string& language_code) {
    std::string primary;
    for (char c : language_code) {
        if (c == '-' || c == '_') break;
        primary.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
    }
    for (const char* chinese : {"zh", "zho", "chi", "cmn"})
        if (primary == chinese) return BleuTokenize::zh;
    return BleuTokenize::v13a;
}

std::string metrics_version() { return std::string("attend-") + kAttendVersion; }

std::string bleu_signature(const BleuOptions& options) {
    return std::string("nrefs:1|case:") + (options.lowercase ? "lc" : "mixed") +
           "|eff:no|tok:" + bleu_tokenize_name(options.tokenize) +
           "|smooth:" + (options.smoothing == BleuSmoothing::exp ? "exp" : "none") + "|version:" + metrics_version();
}

CorpusBleu corpus_bleu(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references,
                       const BleuOptions& options) {
    if (!options.lowercase && options.tokenize == BleuTokenize::none)
        return corpus_bleu(hypotheses, references, options.smoothing);
    std::vector<std::string> hyps, refs;
    hyps.reserve(hypotheses.size());
    refs.reserve(references.size());
    for (const std::string& line : hypotheses) hyps.push_back(bleu_preprocess(line, options));
    for (const std::string& line : references) refs.push_back(bleu_preprocess(line, options));
    return corpus_bleu(hyps, refs, options.smoothing);
}

std::string CorpusBleu::format() const {
    char line[256];
    std::snprintf(line, sizeof line,
                  "BLEU = %.2f %.1f/%.1f/%.1f/%.1f (BP = %.3f ratio = %.3f hyp_len = %lld ref_len = %lld)", score,
                  precisions[0], precisions[1], precisions[2], precisions[3], brevity_penalty, ratio,
                  static_cast<long long>(hyp_len), static_cast<long long>(ref_len));
    return line;
}

}  // namespace attend
