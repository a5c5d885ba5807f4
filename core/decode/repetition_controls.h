// The repetition controls of SearchOptions (no_repeat_ngram_size, repetition_penalty, the token and character run
// limits) and its number rule (numbers_from_source) applied to one row of next-token logits, shared by greedy,
// batched greedy and beam search so that the three agree token for token.
#pragma once
#include "decode/search_options.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attend {

class RepetitionControls {
public:
    RepetitionControls(const SearchOptions& options, int vocab_size);
    bool active() const {
        return ngram_ > 0 || penalty_ != 1.0f || max_char_run_ > 0 || max_token_run_ > 0 || max_piece_run_ > 0 ||
               adjacent_ > 1 || numbers_;
    }
    // logits [V] of the token that follows `generated` [length] (tokens after <bos>): repeated tokens get the
    // penalty, and a token that would repeat an n-gram of `generated`, end a phrase said twice in a row, run on too
    // long (one token, one piece inside a word, or one character), or write a number the source does not hold gets
    // -infinity. Leaves eos_id (which cannot occur inside `generated`, and has no text) alone except where a number
    // must go on and a digit may, so every row keeps a finite logit.
    void apply(float* logits, const int* generated, int length);

private:
    int ngram_;
    float penalty_;
    int vocab_;
    int max_char_run_, max_token_run_, max_piece_run_;
    int adjacent_;
    std::vector<int> source_ids_;
    const std::vector<TokenShape>* shapes_;
    std::u32string exempt_;
    std::vector<uint8_t> seen_;  // [V] scratch, all zero between calls
    bool numbers_, word_start_pieces_;
    int eos_;
    std::vector<NumberRun> numbers_allowed_;  // the source's numbers
    std::vector<float> digit_logits_;         // word_start_pieces: digit_tokens_' logits as apply() got them
    std::vector<int> digit_tokens_;             // the tokens that begin or end with a digit

    const TokenShape& shape_of(int token) const;  // needs shapes_
    bool source_repeats(const int* phrase, int k) const;  // source_ids_ holds phrase [k] twice in a row
    bool source_runs(int token, int n) const;             // source_ids_ holds token n times in a row
    void forbid_other_numbers(float* logits, const int* generated, int length) const;
    void forbid_other_numbers_in_pieces(float* logits, const int* generated, int length) const;  // word_start_pieces
};

}  // namespace attend
