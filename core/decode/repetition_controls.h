// The repetition controls of SearchOptions (no_repeat_ngram_size, repetition_penalty) applied to one row of
// next-token logits, shared by greedy, batched greedy and beam search so that the three agree token for token.
#pragma once
#include "decode/search_options.h"

#include <cstdint>
#include <vector>

namespace attend {

class RepetitionControls {
public:
    RepetitionControls(const SearchOptions& options, int vocab_size);
    bool active() const { return ngram_ > 0 || penalty_ != 1.0f || max_char_run_ > 0 || max_token_run_ > 0; }
    // logits [V] of the token that follows `generated` [length] (tokens after <bos>): repeated tokens get the
    // penalty, and a token that would repeat an n-gram of `generated`, or run on too long (one token, or one character), gets
    // -infinity. Never touches eos_id (which cannot occur inside `generated`, and has no text), so every row keeps
    // a finite logit.
    void apply(float* logits, const int* generated, int length);

private:
    int ngram_;
    float penalty_;
    int vocab_;
    int max_char_run_, max_token_run_;
    const std::vector<TokenShape>* shapes_;
    std::u32string exempt_;
    std::vector<uint8_t> seen_;  // [V] scratch, all zero between calls
};

}  // namespace attend
