// SearchOptions::numbers_from_source: a number written in digits is one of the source's (source_numbers). Two forms,
// as the vocabulary marks where a piece glues on: BPE's "piece@@" glues on to the next one, SentencePiece's piece
// without "▁" on to the one before (word_start_pieces).
#pragma once
#include "decode/logits_processor.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace attend {

// What both forms share: the source's numbers and the tokens that begin or end with a digit.
class NumberRule : public LogitsProcessor {
public:
    NumberRule(const SearchOptions& o, int vocab_size)
        : shapes_(shapes_for(o, vocab_size, "numbers_from_source")), eos_(o.eos_id), numbers_(o.source_numbers) {
        for (int v = 0; v < vocab_size; v++)
            if (!shapes_[v].head_digits.empty() || !shapes_[v].tail_digits.empty()) digit_tokens_.push_back(v);
    }

protected:
    const std::vector<TokenShape>& shapes_;
    int eos_;
    std::vector<NumberRun> numbers_;  // the source's
    std::vector<int> digit_tokens_;

    template <class F> bool any_number(F f) const { return std::any_of(numbers_.begin(), numbers_.end(), f); }
    bool whole(const std::string& run) const {
        return any_number([&](const NumberRun& n) { return n.digits == run; });
    }
    // A part of a number of the source from its start (or, !longer, all of it too).
    bool begins(const std::string& run, bool longer) const {
        return any_number([&](const NumberRun& n) {
            return n.digits.size() + (longer ? 0 : 1) > run.size() && n.digits.compare(0, run.size(), run) == 0;
        });
    }
    // An open run goes on: every token but <eos> that `goes_on` rejects is forbidden.
    template <class F> void keep_only(float* logits, F goes_on) const {
        for (size_t v = 0; v < shapes_.size(); v++)
            if (static_cast<int>(v) != eos_ && !goes_on(shapes_[v])) logits[v] = kForbidden;
    }
    // And <eos> only where the other rules leave no digit.
    void no_eos_while_digits(float* logits) const {
        if (eos_ >= 0 && eos_ < static_cast<int>(shapes_.size()) &&
            std::any_of(digit_tokens_.begin(), digit_tokens_.end(), [&](int v) { return std::isfinite(logits[v]); }))
            logits[eos_] = kForbidden;
    }
};

// BPE: a token is forbidden where its digits would end a run that is no number of the source, or leave open for
// the next token one that can become none of them (a part of one; a whole one only where the source glues on to it
// too, as in "1950s").
class GluedNumbers final : public NumberRule {
public:
    static bool asked(const SearchOptions& o) { return o.numbers_from_source && !o.word_start_pieces; }
    using NumberRule::NumberRule;
    void apply(float* logits, const int* generated, int length) override {
        // The digits at the end of the text so far that the next token glues on to: the last token's trailing
        // digits, extended back through glued tokens made of digits only.
        std::string open;
        for (int i = length - 1; i >= 0; i--) {
            const TokenShape& s = shape_at(shapes_, generated[i]);
            if (!s.joins_next || s.tail_digits.empty()) break;
            open.insert(0, s.tail_digits);
            if (!s.digits_only) break;
        }
        auto glued_on = [&](const std::string& run) {
            return any_number([&](const NumberRun& n) { return n.glued && n.digits == run; });
        };
        auto leaves_open = [&](const std::string& run) { return glued_on(run) || begins(run, true); };
        // An open run that is not a whole number the source glues on to goes on with digits ("1@@" of 1950 must
        // not become "1ème", nor end there).
        const bool must_go_on = !open.empty() && !glued_on(open);
        if (must_go_on) keep_only(logits, [](const TokenShape& s) { return !s.head_digits.empty(); });
        // A run the token ends must be a whole number of the source; one it leaves open for the next token, a part
        // of one, or a whole one that the source glues on to.
        for (int v : digit_tokens_) {
            const TokenShape& s = shapes_[v];
            bool allowed = true;
            if (!s.head_digits.empty()) {
                const std::string run = open + s.head_digits;
                allowed = s.digits_only && s.joins_next ? leaves_open(run) : whole(run);
            }
            if (allowed && !s.digits_only && !s.tail_digits.empty())
                allowed = s.joins_next ? leaves_open(s.tail_digits) : whole(s.tail_digits);
            if (!allowed) logits[v] = kForbidden;
        }
        if (must_go_on) no_eos_while_digits(logits);
    }
};

// SentencePiece: a piece goes on with the text before it unless it begins a word, so the digits the text ends with
// are open until a piece that does not go on with digits closes them; what closes a run must leave a whole number
// of the source, and digits may only grow a run towards one.
class PieceNumbers final : public NumberRule {
public:
    static bool asked(const SearchOptions& o) { return o.numbers_from_source && o.word_start_pieces; }
    using NumberRule::NumberRule;
    void see(const float* logits) override {  // the digits' logits before the other rules
        digit_logits_.resize(digit_tokens_.size());
        for (size_t i = 0; i < digit_tokens_.size(); i++) digit_logits_[i] = logits[digit_tokens_[i]];
    }
    void apply(float* logits, const int* generated, int length) override {
        std::string open;
        for (int i = length - 1; i >= 0; i--) {
            const TokenShape& s = shape_at(shapes_, generated[i]);
            if (s.tail_digits.empty()) break;
            open.insert(0, s.tail_digits);
            if (!s.digits_only || s.starts_word) break;
        }
        auto goes_on = [](const TokenShape& s) { return !s.starts_word && !s.head_digits.empty(); };
        // An open run that is no whole number goes on with digits: nothing else may close it.
        const bool must_go_on = !open.empty() && !whole(open);
        if (must_go_on) keep_only(logits, goes_on);
        std::vector<size_t> goes_on_allowed;  // digit_tokens_ indices: the ones that may finish the open run
        for (size_t i = 0; i < digit_tokens_.size(); i++) {
            const TokenShape& s = shapes_[digit_tokens_[i]];
            bool allowed = true;
            if (!s.head_digits.empty()) {
                const std::string run = goes_on(s) ? open + s.head_digits : s.head_digits;
                allowed = s.digits_only ? begins(run, false) : whole(run);
            }
            if (allowed && !s.digits_only && !s.tail_digits.empty()) allowed = begins(s.tail_digits, false);
            if (!allowed) logits[digit_tokens_[i]] = kForbidden;
            if (allowed && must_go_on && goes_on(s)) goes_on_allowed.push_back(i);
        }
        // A number begun is finished: where the other rules forbid every digit that finishes it (a source number
        // said again trips the n-gram limit, which one digit a piece makes likely), those digits come back with
        // their own logits rather than leave a part of a number (the text would end "I'm 1" for the source's 101).
        if (must_go_on && std::none_of(goes_on_allowed.begin(), goes_on_allowed.end(),
                                       [&](size_t i) { return std::isfinite(logits[digit_tokens_[i]]); }))
            for (size_t i : goes_on_allowed) logits[digit_tokens_[i]] = digit_logits_[i];
        if (must_go_on) no_eos_while_digits(logits);
    }

private:
    std::vector<float> digit_logits_;  // digit_tokens_' logits as the model gave them
};

}  // namespace attend
