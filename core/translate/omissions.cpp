#include "translate/omissions.h"

#include "error.h"
#include "kernels/softmax.h"
#include "text/case_mapping.h"
#include "text/char_class.h"
#include "text/tokenizer.h"
#include "text/utf8.h"
#include "text/word_lists.h"

#include <algorithm>
#include <cmath>
#include <memory>

namespace attend {
namespace {

bool has_letter_or_digit(const std::string& text) {
    for (char32_t cp : utf8_decode(text))
        if (is_alnum(cp)) return true;
    return false;
}

// The closed-class words of a language (articles, auxiliaries, prepositions, pronouns, conjunctions:
// data/lang/<lang>/closed_class.txt): a translation rightly folds them into other words, so that the model finds it
// as likely without them. A language without the list has none.
bool closed_class_word(const std::string& word, const std::string& language) {
    const WordList* words = find_word_list(language.substr(0, 2) + "/closed_class");
    return words && words->contains(lowercase(word));
}

// Chinese and Japanese write no spaces: SentencePiece marks only the start of the text, and each piece that begins
// with a Han, kana or CJK punctuation character is taken as a word of its own.
bool begins_unspaced_word(const std::string& piece) {
    const std::u32string cps = utf8_decode(piece);
    if (cps.empty()) return false;
    const char32_t c = cps[0];
    return (c >= 0x3000 && c <= 0x30FF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x4E00 && c <= 0x9FFF) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFF00 && c <= 0xFFEF);
}

// A source word as its pieces spell it, for people: BPE undone and Moses' escapes read ("'s", not "&apos;s"), in
// the case the model read it (the display pipeline would capitalize it as a sentence's first word).
std::string word_of_pieces(const std::vector<std::string>& pieces, const TextPipeline& pipeline) {
    std::string word;
    if (pipeline.type != TextPipelineType::moses_bpe) {
        word = postprocess_for_display(pieces, pipeline);
    } else {
        for (const std::string& piece : pieces)
            word += piece.size() >= 2 && piece.compare(piece.size() - 2, 2, "@@") == 0
                        ? piece.substr(0, piece.size() - 2)
                        : piece;
        word = unescape_xml(word);
    }
    // A full stop or question mark that a subword pipeline keeps on the word ("you." in "▁you .") is not the word.
    std::u32string cps = utf8_decode(word);
    while (!cps.empty() && !is_alnum(cps.back())) cps.pop_back();
    return cps.empty() ? word : utf8_encode(cps);
}

}  // namespace

std::vector<double> translation_log_probs(const TranslatorNetwork& network,
                                          const std::vector<std::vector<int>>& sources, const std::vector<int>& target,
                                          int bos_id) {
    const int B = static_cast<int>(sources.size()), T = static_cast<int>(target.size());
    std::vector<double> out(B, 0.0);
    if (B == 0 || T == 0) return out;
    for (const std::vector<int>& s : sources)
        if (s.empty() || static_cast<int>(s.size()) > network.max_source_tokens())
            throw Error("translation scores: a source of " + std::to_string(s.size()) +
                        " tokens (expected 1.." + std::to_string(network.max_source_tokens()) + ")");
    if (T > network.max_target_tokens())
        throw Error("translation scores: a translation of " + std::to_string(T) + " tokens (at most " +
                    std::to_string(network.max_target_tokens()) + ")");
    // Teacher forcing through the search's own step model: the scores are those of the steps that chose the tokens.
    auto force = [&](StepModel& model, int rows, double* scores) {
        const int V = model.vocab_size();
        std::vector<float> logits(size_t(rows) * V);
        std::vector<int> last(rows, bos_id);
        for (int t = 0; t < T; t++) {
            model.step(logits.data(), last.data(), rows);
            for (int b = 0; b < rows; b++) scores[b] += log_softmax_at(logits.data() + size_t(b) * V, V, target[t]);
            std::fill(last.begin(), last.end(), target[t]);
        }
    };
    if (network.decodes_batches()) {
        size_t S = 0;
        for (const std::vector<int>& s : sources) S = std::max(S, s.size());
        std::vector<int> src(size_t(B) * S, sources[0][0]), lens(B);  // padding: masked by the valid lengths
        for (int b = 0; b < B; b++) {
            std::copy(sources[b].begin(), sources[b].end(), src.begin() + b * S);
            lens[b] = static_cast<int>(sources[b].size());
        }
        std::unique_ptr<StepModel> model = network.batch_search_model(src.data(), lens.data(), B, int(S), T);
        force(*model, B, out.data());
    } else {
        for (int b = 0; b < B; b++) {
            std::unique_ptr<StepModel> model =
                network.search_model(sources[b].data(), static_cast<int>(sources[b].size()), T);
            force(*model, 1, &out[b]);
        }
    }
    return out;
}

std::vector<int> source_word_starts(const std::vector<std::string>& source_tokens, const TextPipeline& pipeline) {
    std::vector<int> starts;
    const int n = static_cast<int>(source_tokens.size()) - 1;  // <eos> last
    static const std::string kWordMark = "\xE2\x96\x81";     // U+2581
    for (int i = 0; i < n; i++) {
        const std::string& token = source_tokens[i];
        bool begins = i == 0;
        if (!begins) {
            const std::string& before = source_tokens[i - 1];
            switch (pipeline.type) {
                case TextPipelineType::moses_bpe:
                    begins = !(before.size() >= 2 && before.compare(before.size() - 2, 2, "@@") == 0);
                    break;
                case TextPipelineType::sentencepiece:
                    begins = token.rfind(kWordMark, 0) == 0 || begins_unspaced_word(token);
                    break;
                case TextPipelineType::d2l_words: begins = true; break;
            }
        }
        if (begins) starts.push_back(i);
    }
    starts.push_back(std::max(n, 0));
    return starts;
}

std::vector<SourceWordGain> source_word_gains(const TranslatorNetwork& network,
                                              const std::vector<std::string>& source_tokens,
                                              const std::vector<int>& src, const std::vector<int>& target, int bos_id,
                                              const TextPipeline& source_pipeline) {
    if (src.size() != source_tokens.size()) throw Error("source word gains: tokens and ids differ in number");
    const std::vector<int> starts = source_word_starts(source_tokens, source_pipeline);
    const int words = static_cast<int>(starts.size()) - 1;
    if (words < 2) return {};
    const std::string language = language_code(source_pipeline);
    std::vector<std::vector<int>> sources{src};
    std::vector<SourceWordGain> gains;
    for (int w = 0; w < words; w++) {
        const std::vector<std::string> pieces(source_tokens.begin() + starts[w], source_tokens.begin() + starts[w + 1]);
        std::string word = word_of_pieces(pieces, source_pipeline);
        if (!has_letter_or_digit(word) || closed_class_word(word, language)) continue;
        std::vector<int> without(src.begin(), src.begin() + starts[w]);
        without.insert(without.end(), src.begin() + starts[w + 1], src.end());
        sources.push_back(std::move(without));
        gains.push_back({std::move(word), 0.0f});
    }
    const std::vector<double> scores = translation_log_probs(network, sources, target, bos_id);
    for (size_t i = 0; i < gains.size(); i++) gains[i].gain = static_cast<float>(scores[i + 1] - scores[0]);
    return gains;
}

}  // namespace attend
