#include "text/chrf.h"

#include <algorithm>
#include <cstdio>
#include <unordered_map>

#include "error.h"
#include "text/bleu.h"
#include "text/tokenizer_13a.h"
#include "text/utf8.h"

namespace attend {
namespace {

std::u32string without_whitespace(const std::string& line) {
    std::u32string cps = utf8_decode(line);
    cps.erase(std::remove_if(cps.begin(), cps.end(), is_python_space), cps.end());
    return cps;
}

std::unordered_map<std::u32string, std::int64_t> char_ngrams(const std::u32string& text, int n) {
    std::unordered_map<std::u32string, std::int64_t> counts;
    for (std::size_t i = 0; i + n <= text.size(); ++i) ++counts[text.substr(i, n)];
    return counts;
}

}  // namespace

CorpusChrf corpus_chrf(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references) {
    if (hypotheses.size() != references.size())
        throw Error("chrF: " + std::to_string(hypotheses.size()) + " hypotheses but " +
                    std::to_string(references.size()) + " references (expected one reference per hypothesis)");
    CorpusChrf result;
    for (std::size_t s = 0; s < hypotheses.size(); ++s) {
        const std::u32string hyp = without_whitespace(hypotheses[s]), ref = without_whitespace(references[s]);
        for (int n = 1; n <= CorpusChrf::kOrder; ++n) {
            const auto hyp_counts = char_ngrams(hyp, n), ref_counts = char_ngrams(ref, n);
            std::int64_t hyp_total = 0, ref_total = 0, matches = 0;
            for (const auto& [ngram, count] : hyp_counts) {
                hyp_total += count;
                auto it = ref_counts.find(ngram);
                if (it != ref_counts.end()) matches += std::min(count, it->second);
            }
            for (const auto& entry : ref_counts) ref_total += entry.second;
            // sacreBLEU does not count a hypothesis n-gram against a reference with none of that order.
            result.hyp[n - 1] += ref_counts.empty() ? 0 : hyp_total;
            result.ref[n - 1] += ref_total;
            result.match[n - 1] += matches;
        }
    }
    for (int i = 0; i < CorpusChrf::kOrder; ++i) {
        if (result.hyp[i] > 0 && result.ref[i] > 0) {
            result.precision += static_cast<double>(result.match[i]) / static_cast<double>(result.hyp[i]);
            result.recall += static_cast<double>(result.match[i]) / static_cast<double>(result.ref[i]);
            ++result.effective_order;
        }
    }
    if (result.effective_order > 0) {
        result.precision /= result.effective_order;
        result.recall /= result.effective_order;
    }
    const double factor = static_cast<double>(CorpusChrf::kBeta * CorpusChrf::kBeta);
    if (result.precision + result.recall > 0)
        result.score = 100.0 * (1 + factor) * result.precision * result.recall / (factor * result.precision + result.recall);
    return result;
}

// eff:yes is sacreBLEU's way of saying that no epsilon smoothing is used: orders without n-grams drop out.
std::string chrf_signature(bool lowercased) {
    return std::string("nrefs:1|case:") + (lowercased ? "lc" : "mixed") + "|eff:yes|nc:" +
           std::to_string(CorpusChrf::kOrder) + "|nw:0|space:no|version:" + metrics_version();
}

std::string CorpusChrf::format() const {
    char line[64];
    std::snprintf(line, sizeof line, "chrF%d = %.2f", kBeta, score);
    return line;
}

}  // namespace attend
