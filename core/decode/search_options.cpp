#include "decode/search_options.h"

#include "error.h"
#include "kernels/softmax.h"
#include "kernels/topk.h"
#include "text/utf8.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace attend {

namespace {

bool ascii_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

float normalized_score(float log_prob, int length, float length_penalty) {
    if (length_penalty == 0.0f || length <= 0) return log_prob;
    return log_prob / std::pow(static_cast<float>(length), length_penalty);
}

void check_prefix(const SearchOptions& options, int V) {
    if (options.alternatives < 0) throw Error("search: alternatives must be 0 or more");
    const int P = static_cast<int>(options.prefix.size());
    if (P >= options.max_length)
        throw Error("search: the target prefix is " + std::to_string(P) +
                    " tokens long; the length limit leaves room for at most " + std::to_string(options.max_length - 1) +
                    " (the translation's last token is the model's to choose)");
    for (int i = 0; i < P; i++) {
        const int id = options.prefix[i];
        if (id < 0 || id >= V)
            throw Error("search: target prefix token " + std::to_string(i + 1) + " has id " + std::to_string(id) +
                        ", outside the vocabulary (0.." + std::to_string(V - 1) + ")");
        if (id == options.eos_id)
            throw Error("search: target prefix token " + std::to_string(i + 1) +
                        " is <eos>, which ends a translation: a prefix cannot hold it");
    }
}

void append_alternatives(Hypothesis& h, const float* row, int V, int k, float token_log_prob, bool log_probs) {
    h.token_probs.push_back(std::exp(token_log_prob));
    const size_t at = h.alternative_ids.size();
    h.alternative_ids.resize(at + k);
    h.alternative_probs.resize(at + k);
    int* ids = h.alternative_ids.data() + at;
    float* probs = h.alternative_probs.data() + at;
    topk(ids, probs, row, V, k);
    for (int j = 0; j < k; j++) {
        const float lp = log_probs ? probs[j] : log_softmax_at(row, V, ids[j]);
        // A token the repetition controls forbid (-infinity) is no alternative.
        if (lp == -std::numeric_limits<float>::infinity()) {
            ids[j] = -1;
            probs[j] = 0.0f;
        } else {
            probs[j] = std::exp(lp);
        }
    }
}

namespace {
constexpr std::string_view kWordMark = "\xE2\x96\x81";  // U+2581: SentencePiece's space, at a word's first piece
bool starts_word(std::string_view piece) { return piece.substr(0, kWordMark.size()) == kWordMark; }
}  // namespace

TokenShape token_shape(const std::string& token) {
    TokenShape shape;
    std::string_view text = token;
    if (text.size() >= 2 && text.substr(text.size() - 2) == "@@") {
        shape.joins_next = true;
        text.remove_suffix(2);
    }
    if (text.empty() || (text.front() == '<' && text.back() == '>') || utf8_find_invalid(text) != std::string_view::npos)
        return shape;
    const std::u32string cps = utf8_decode(text);
    shape.first = cps.front();
    shape.last = cps.back();
    while (shape.lead < static_cast<int>(cps.size()) && cps[shape.lead] == shape.first) shape.lead++;
    while (shape.trail < static_cast<int>(cps.size()) && cps[cps.size() - 1 - shape.trail] == shape.last) shape.trail++;
    shape.uniform = shape.lead == static_cast<int>(cps.size());
    if (starts_word(text)) {
        shape.starts_word = true;
        text.remove_prefix(kWordMark.size());
    }
    const auto head = static_cast<size_t>(std::find_if_not(text.begin(), text.end(), ascii_digit) - text.begin());
    const auto tail = static_cast<size_t>(std::find_if_not(text.rbegin(), text.rend(), ascii_digit) - text.rbegin());
    shape.head_digits = std::string(text.substr(0, head));
    shape.tail_digits = std::string(text.substr(text.size() - tail));
    shape.digits_only = head == text.size();
    for (size_t i = 0; i < text.size();) {
        if (text.compare(i, 6, "&quot;") == 0) {
            shape.quotes++, i += 6;
        } else {
            const char c = text[i++];
            shape.quotes += c == '"';
            shape.opens += c == '(';
            shape.closes += c == ')';
        }
    }
    return shape;
}

namespace {

struct MarkCount {
    int quotes = 0, depth = 0;
    bool in_order = true;
    void add(const TokenShape& shape) {
        quotes += shape.quotes;
        depth += shape.opens - shape.closes;
        in_order = in_order && depth >= 0;
    }
    MarkPairs pairs() const { return {quotes % 2 == 0, in_order && depth == 0}; }
};

}  // namespace

MarkPairs marks_pair_up(const std::vector<std::string>& tokens) {
    MarkCount count;
    for (const std::string& token : tokens) count.add(token_shape(token));
    return count.pairs();
}

MarkPairs marks_pair_up(const std::vector<int>& tokens, const std::vector<TokenShape>& shapes) {
    MarkCount count;
    for (int token : tokens)
        if (token >= 0 && token < static_cast<int>(shapes.size())) count.add(shapes[token]);
    return count.pairs();
}

std::vector<NumberRun> digit_runs(const std::vector<std::string>& tokens, bool word_start_pieces) {
    std::string text;  // what the tokens spell, a space after each word
    for (const std::string& token : tokens) {
        if (word_start_pieces) {
            const bool special = token.size() >= 2 && token.front() == '<' && token.back() == '>';
            const bool word = starts_word(token);
            if (special || word) text += ' ';
            if (!special) text.append(token, word ? kWordMark.size() : 0);
            continue;
        }
        const bool joins_next = token.size() >= 2 && token.compare(token.size() - 2, 2, "@@") == 0;
        text.append(token, 0, token.size() - (joins_next ? 2 : 0));
        if (!joins_next) text += ' ';
    }
    std::vector<NumberRun> runs;
    for (size_t i = 0; i < text.size();) {
        if (!ascii_digit(text[i])) {
            i++;
            continue;
        }
        size_t end = i;
        while (end < text.size() && ascii_digit(text[end])) end++;
        // The code of a character reference ("&#91;", the Moses escape of "[") is no number of the text.
        if (!(i >= 2 && text.compare(i - 2, 2, "&#") == 0)) {
            const std::string run = text.substr(i, end - i);
            const bool glued = end < text.size() && text[end] != ' ';
            auto same = std::find_if(runs.begin(), runs.end(), [&](const NumberRun& n) { return n.digits == run; });
            if (same == runs.end())
                runs.push_back({run, glued});
            else
                same->glued = same->glued || glued;
        }
        i = end;
    }
    return runs;
}

}  // namespace attend
