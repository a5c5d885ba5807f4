#include "decode/repetition_controls.h"

#include "error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace attend {

RepetitionControls::RepetitionControls(const SearchOptions& options, int vocab_size)
    : ngram_(options.no_repeat_ngram_size),
      penalty_(options.repetition_penalty),
      vocab_(vocab_size),
      max_char_run_(options.max_char_run),
      max_token_run_(options.max_token_run),
      max_piece_run_(options.max_piece_run),
      adjacent_(options.no_adjacent_repeat_size),
      source_ids_(options.source_ids),
      shapes_(options.token_shapes),
      exempt_(options.char_run_exempt),
      numbers_(options.numbers_from_source),
      word_start_pieces_(options.word_start_pieces),
      eos_(options.eos_id),
      numbers_allowed_(options.source_numbers) {
    if (max_token_run_ < 0) throw Error("max_token_run must not be negative, got " + std::to_string(max_token_run_));
    if (adjacent_ < 0)
        throw Error("no_adjacent_repeat_size must not be negative, got " + std::to_string(adjacent_));
    if (max_char_run_ < 0) throw Error("max_char_run must not be negative, got " + std::to_string(max_char_run_));
    if (max_piece_run_ < 0) throw Error("max_piece_run must not be negative, got " + std::to_string(max_piece_run_));
    if ((max_char_run_ > 0 || max_piece_run_ > 0 || numbers_) &&
        (!shapes_ || static_cast<int>(shapes_->size()) != vocab_size))
        throw Error(std::string(numbers_            ? "numbers_from_source"
                                : max_char_run_ > 0 ? "max_char_run"
                                                    : "max_piece_run") +
                    " needs the shape of every one of the " + std::to_string(vocab_size) + " tokens");
    if (numbers_)
        for (int v = 0; v < vocab_size; v++)
            if (!(*shapes_)[v].head_digits.empty() || !(*shapes_)[v].tail_digits.empty()) digit_tokens_.push_back(v);
    if (ngram_ < 0) throw Error("no_repeat_ngram_size must not be negative, got " + std::to_string(ngram_));
    if (!std::isfinite(penalty_) || penalty_ <= 0.0f)
        throw Error("repetition_penalty must be a finite number above 0, got " + std::to_string(penalty_));
    if (penalty_ != 1.0f) seen_.assign(static_cast<size_t>(vocab_size), 0);
}

const TokenShape& RepetitionControls::shape_of(int token) const {
    static const TokenShape none;  // an id outside the vocabulary has no text
    return token >= 0 && token < vocab_ ? (*shapes_)[token] : none;
}

bool RepetitionControls::source_repeats(const int* phrase, int k) const {
    const int S = static_cast<int>(source_ids_.size());
    for (int start = 0; start + 2 * k <= S; ++start)
        if (std::equal(phrase, phrase + k, source_ids_.begin() + start) &&
            std::equal(phrase, phrase + k, source_ids_.begin() + start + k))
            return true;
    return false;
}

bool RepetitionControls::source_runs(int token, int n) const {
    const int S = static_cast<int>(source_ids_.size());
    for (int start = 0, run = 0; start < S; ++start) {
        run = source_ids_[start] == token ? run + 1 : 0;
        if (run >= n) return true;
    }
    return false;
}

void RepetitionControls::apply(float* logits, const int* generated, int length) {
    if (numbers_ && word_start_pieces_) {  // the digits' logits before the other controls (see the number rule)
        digit_logits_.resize(digit_tokens_.size());
        for (size_t i = 0; i < digit_tokens_.size(); i++) digit_logits_[i] = logits[digit_tokens_[i]];
    }
    if (penalty_ != 1.0f) {
        // Each distinct token once, however often it occurred.
        for (int i = 0; i < length; ++i) {
            const int token = generated[i];
            if (token < 0 || token >= vocab_ || seen_[token]) continue;
            seen_[token] = 1;
            float& x = logits[token];
            x = x < 0.0f ? x * penalty_ : x / penalty_;
        }
        for (int i = 0; i < length; ++i)
            if (generated[i] >= 0 && generated[i] < vocab_) seen_[generated[i]] = 0;
    }
    if (max_token_run_ > 0 && length >= max_token_run_) {
        const int token = generated[length - 1];
        if (token >= 0 && token < vocab_ &&
            std::all_of(generated + length - max_token_run_, generated + length, [&](int t) { return t == token; }))
            logits[token] = -std::numeric_limits<float>::infinity();
    }
    if (max_piece_run_ > 0 && length >= max_piece_run_) {
        const int token = generated[length - 1];
        if (shape_of(token).joins_next &&
            std::all_of(generated + length - max_piece_run_, generated + length, [&](int t) { return t == token; }) &&
            !source_runs(token, max_piece_run_ + 1))
            logits[token] = -std::numeric_limits<float>::infinity();
    }
    if (max_char_run_ > 0 && length > 0) {
        // The run of one character at the end of the text so far: the last token's trailing run, extended back
        // through glued tokens made of that character only.
        const std::vector<TokenShape>& shapes = *shapes_;
        const TokenShape& last = shape_of(generated[length - 1]);
        const char32_t c = last.last;
        if (c != 0 && last.joins_next && exempt_.find(c) == std::u32string::npos) {
            int run = last.trail;
            for (int i = length - 1; i > 0 && shape_of(generated[i]).uniform; i--) {
                const TokenShape& before = shape_of(generated[i - 1]);
                if (!before.joins_next || before.last != c) break;
                run += before.trail;
            }
            for (int v = 0; v < vocab_; v++)
                if (shapes[v].first == c && run + shapes[v].lead > max_char_run_)
                    logits[v] = -std::numeric_limits<float>::infinity();
        }
    }
    if (ngram_ > 0 && length >= ngram_ - 1) {
        // The newest n-1 tokens, followed by token x, would form an n-gram: forbid x wherever those n-1 tokens
        // occurred before, followed by x.
        const int context = ngram_ - 1;
        const int* suffix = generated + (length - context);
        for (int start = 0; start + context < length; ++start)
            if (std::equal(suffix, suffix + context, generated + start)) {
                const int banned = generated[start + context];
                if (banned >= 0 && banned < vocab_) logits[banned] = -std::numeric_limits<float>::infinity();
            }
    }
    for (int k = 2; k <= adjacent_ && 2 * k - 1 <= length; ++k) {
        // The phrase first [k] said once, and its first k - 1 tokens said again at the end: its last token would
        // say it twice in a row.
        const int* first = generated + (length - (2 * k - 1));
        if (!std::equal(first, first + k - 1, first + k)) continue;
        const int banned = first[k - 1];
        if (banned >= 0 && banned < vocab_ && !source_repeats(first, k))
            logits[banned] = -std::numeric_limits<float>::infinity();
    }
    if (numbers_ && word_start_pieces_)  // last: it looks at what the others left
        forbid_other_numbers_in_pieces(logits, generated, length);
    else if (numbers_)
        forbid_other_numbers(logits, generated, length);
}

void RepetitionControls::forbid_other_numbers(float* logits, const int* generated, int length) const {
    const std::vector<TokenShape>& shapes = *shapes_;
    // The digits at the end of the text so far that the next token glues on to: the last token's trailing digits,
    // extended back through glued tokens made of digits only.
    std::string open;
    for (int i = length - 1; i >= 0; i--) {
        const TokenShape& s = shape_of(generated[i]);
        if (!s.joins_next || s.tail_digits.empty()) break;
        open.insert(0, s.tail_digits);
        if (!s.digits_only) break;
    }
    auto ends_number = [&](const std::string& run) {
        return std::any_of(numbers_allowed_.begin(), numbers_allowed_.end(),
                           [&](const NumberRun& n) { return n.digits == run; });
    };
    auto glued_on = [&](const std::string& run) {
        return std::any_of(numbers_allowed_.begin(), numbers_allowed_.end(),
                           [&](const NumberRun& n) { return n.glued && n.digits == run; });
    };
    auto leaves_open = [&](const std::string& run) {
        return glued_on(run) || std::any_of(numbers_allowed_.begin(), numbers_allowed_.end(), [&](const NumberRun& n) {
                   return n.digits.size() > run.size() && n.digits.compare(0, run.size(), run) == 0;
               });
    };
    // An open run that is not a whole number the source glues on to goes on with digits ("1@@" of 1950 must not
    // become "1ème", nor end there): only the digits that may follow are left, and <eos> where none is.
    const bool must_go_on = !open.empty() && !glued_on(open);
    if (must_go_on)
        for (int v = 0; v < vocab_; v++)
            if (v != eos_ && shapes[v].head_digits.empty()) logits[v] = -std::numeric_limits<float>::infinity();
    // A run the token ends must be a whole number of the source; one it leaves open for the next token, a part of
    // one, or a whole one that the source glues on to.
    for (int v : digit_tokens_) {
        const TokenShape& s = shapes[v];
        bool allowed = true;
        if (!s.head_digits.empty()) {
            const std::string run = open + s.head_digits;
            allowed = s.digits_only && s.joins_next ? leaves_open(run) : ends_number(run);
        }
        if (allowed && !s.digits_only && !s.tail_digits.empty())
            allowed = s.joins_next ? leaves_open(s.tail_digits) : ends_number(s.tail_digits);
        if (!allowed) logits[v] = -std::numeric_limits<float>::infinity();
    }
    if (must_go_on && eos_ >= 0 && eos_ < vocab_ &&
        std::any_of(digit_tokens_.begin(), digit_tokens_.end(), [&](int v) { return std::isfinite(logits[v]); }))
        logits[eos_] = -std::numeric_limits<float>::infinity();
}

// SentencePiece: a piece goes on with the text before it unless it begins a word, so the digits the text ends with
// are open until a piece that does not go on with digits closes them; what closes a run must leave a whole number
// of the source, and digits may only grow a run towards one.
void RepetitionControls::forbid_other_numbers_in_pieces(float* logits, const int* generated, int length) const {
    const std::vector<TokenShape>& shapes = *shapes_;
    std::string open;
    for (int i = length - 1; i >= 0; i--) {
        const TokenShape& s = shape_of(generated[i]);
        if (s.tail_digits.empty()) break;
        open.insert(0, s.tail_digits);
        if (!s.digits_only || s.starts_word) break;
    }
    auto whole = [&](const std::string& run) {
        return std::any_of(numbers_allowed_.begin(), numbers_allowed_.end(),
                           [&](const NumberRun& n) { return n.digits == run; });
    };
    auto may_grow = [&](const std::string& run) {  // a part of a number of the source from its start, or all of it
        return std::any_of(numbers_allowed_.begin(), numbers_allowed_.end(), [&](const NumberRun& n) {
            return n.digits.size() >= run.size() && n.digits.compare(0, run.size(), run) == 0;
        });
    };
    auto goes_on = [&](const TokenShape& s) { return !s.starts_word && !s.head_digits.empty(); };
    // An open run that is no whole number goes on with digits: nothing else may close it.
    const bool must_go_on = !open.empty() && !whole(open);
    if (must_go_on)
        for (int v = 0; v < vocab_; v++)
            if (v != eos_ && !goes_on(shapes[v])) logits[v] = -std::numeric_limits<float>::infinity();
    std::vector<size_t> goes_on_allowed;  // digit_tokens_ indices: the ones that may finish the open run
    for (size_t i = 0; i < digit_tokens_.size(); i++) {
        const int v = digit_tokens_[i];
        const TokenShape& s = shapes[v];
        bool allowed = true;
        if (!s.head_digits.empty()) {
            const std::string run = goes_on(s) ? open + s.head_digits : s.head_digits;
            allowed = s.digits_only ? may_grow(run) : whole(run);
        }
        if (allowed && !s.digits_only && !s.tail_digits.empty()) allowed = may_grow(s.tail_digits);
        if (!allowed) logits[v] = -std::numeric_limits<float>::infinity();
        if (allowed && must_go_on && goes_on(s)) goes_on_allowed.push_back(i);
    }
    // A number begun is finished: where the other controls forbid every digit that finishes it (a source number
    // said again trips the n-gram limit, which one digit a piece makes likely), those digits come back with their
    // own logits rather than leave a part of a number (the text would end "I'm 1" for the source's 101).
    if (must_go_on && std::none_of(goes_on_allowed.begin(), goes_on_allowed.end(),
                                   [&](size_t i) { return std::isfinite(logits[digit_tokens_[i]]); }))
        for (size_t i : goes_on_allowed) logits[digit_tokens_[i]] = digit_logits_[i];
    if (must_go_on && eos_ >= 0 && eos_ < vocab_ &&
        std::any_of(digit_tokens_.begin(), digit_tokens_.end(), [&](int v) { return std::isfinite(logits[v]); }))
        logits[eos_] = -std::numeric_limits<float>::infinity();
}

}  // namespace attend
