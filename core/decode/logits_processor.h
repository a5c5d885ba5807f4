// The decoding rules of SearchOptions (CTranslate2's LogitsProcessor): each rule is one class in its own header
// under decode/rules/, built per sentence by make_logits_processors, so that it reads its sentence's source (what it
// exempts) once, and every row of a batch carries its own list. Greedy, batched greedy and beam search only loop over
// the list, so the three agree token for token, and a new rule is its file and its name in make_logits_processors'
// list, whose order is the order of application: no search changes. A rule class has static asked(options) (whether
// the options ask for it; it throws for a setting out of range) and a constructor from (options, vocab_size).
// A FinishRule is of the same family, consulted where a hypothesis finishes instead of at every step.
#pragma once
#include "decode/search_options.h"

#include <limits>
#include <memory>
#include <vector>

namespace attend {

class LogitsProcessor {
public:
    virtual ~LogitsProcessor() = default;
    // The row of logits as the model gave it, before any rule of the list acted on it: for a rule that needs it.
    virtual void see(const float* logits) {}
    // logits [V] of the token that follows `generated` [length] (tokens after <bos>): a token the rule forbids gets
    // -infinity. eos_id (which cannot occur inside `generated`, and has no text) is left alone except where the
    // number rule needs it gone, and a digit may follow, so every row keeps a finite logit.
    virtual void apply(float* logits, const int* generated, int length) = 0;
};
using LogitsProcessors = std::vector<std::unique_ptr<LogitsProcessor>>;

// The rules `options` asks for over a vocabulary of vocab_size tokens, in their order of application: the
// repetition penalty, the token, piece and character runs, the repeated n-gram, the adjacent phrase, and last the
// number rule (it looks at what the others left). Empty where none is asked for. Throws attend::Error for a
// setting out of range, and for a rule that reads token_shapes without the shape of every token.
LogitsProcessors make_logits_processors(const SearchOptions& options, int vocab_size);

// Every processor's see(), then each one's apply(), in order.
void apply_logits_processors(LogitsProcessors& processors, float* logits, const int* generated, int length);

// A rule over a finished hypothesis (its tokens, <eos> last): beam search sets aside one that a rule rejects, and
// ranks it below every one the rules accept (SearchOptions::close_quotes).
class FinishRule {
public:
    virtual ~FinishRule() = default;
    virtual bool accepts(const std::vector<int>& tokens) const = 0;
};
using FinishRules = std::vector<std::unique_ptr<FinishRule>>;

// The finish rules `options` asks for; throws attend::Error where one needs token_shapes and has none.
FinishRules make_finish_rules(const SearchOptions& options);

// For the rules' files: what a forbidden token's logit becomes.
constexpr float kForbidden = -std::numeric_limits<float>::infinity();
// options.token_shapes, which the rule named `option` needs, for every one of vocab_size tokens.
const std::vector<TokenShape>& shapes_for(const SearchOptions& options, int vocab_size, const char* option);
// The shape of `token`, or none (no text) for an id outside `shapes`.
const TokenShape& shape_at(const std::vector<TokenShape>& shapes, int token);
// `value` of the setting named `option`, which must not be negative.
int not_negative(int value, const char* option);
// Whether the last n of generated [length] (n <= length) are all one token.
bool ends_with_run(const int* generated, int length, int n);

}  // namespace attend
