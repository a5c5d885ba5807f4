#include "decode/logits_processor.h"

#include "decode/rules/adjacent_repeat.h"
#include "decode/rules/char_run.h"
#include "decode/rules/closes_marks.h"
#include "decode/rules/no_repeat_ngram.h"
#include "decode/rules/numbers_from_source.h"
#include "decode/rules/piece_run.h"
#include "decode/rules/repetition_penalty.h"
#include "decode/rules/token_run.h"

#include "error.h"

#include <algorithm>
#include <string>

namespace attend {
namespace {

// Each of Rules that `options` asks for, in order, built from (options, args...).
template <class Base, class... Rules, class... Args>
std::vector<std::unique_ptr<Base>> build(const SearchOptions& options, const Args&... args) {
    std::vector<std::unique_ptr<Base>> out;
    ((Rules::asked(options) ? out.push_back(std::make_unique<Rules>(options, args...)) : void()), ...);
    return out;
}

}  // namespace

LogitsProcessors make_logits_processors(const SearchOptions& options, int vocab_size) {
    return build<LogitsProcessor, RepetitionPenalty, TokenRun, PieceRun, CharRun, NoRepeatNgram, AdjacentRepeat,
                 GluedNumbers, PieceNumbers>(options, vocab_size);
}

void apply_logits_processors(LogitsProcessors& processors, float* logits, const int* generated, int length) {
    for (const auto& p : processors) p->see(logits);
    for (const auto& p : processors) p->apply(logits, generated, length);
}

FinishRules make_finish_rules(const SearchOptions& options) { return build<FinishRule, ClosesMarks>(options); }

const std::vector<TokenShape>& shapes_for(const SearchOptions& options, int vocab_size, const char* option) {
    if (!options.token_shapes || static_cast<int>(options.token_shapes->size()) != vocab_size)
        throw Error(std::string(option) + " needs the shape of every one of the " + std::to_string(vocab_size) +
                    " tokens");
    return *options.token_shapes;
}

const TokenShape& shape_at(const std::vector<TokenShape>& shapes, int token) {
    static const TokenShape none;
    return token >= 0 && token < static_cast<int>(shapes.size()) ? shapes[token] : none;
}

int not_negative(int value, const char* option) {
    if (value < 0) throw Error(std::string(option) + " must not be negative, got " + std::to_string(value));
    return value;
}

bool ends_with_run(const int* generated, int length, int n) {
    return std::all_of(generated + length - n, generated + length, [&](int t) { return t == generated[length - 1]; });
}

}  // namespace attend
