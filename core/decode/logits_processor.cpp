#include "decode/logits_processor.h"

#include "error.h"

#include <algorithm>
#include <string>

namespace attend {

// Each in decode/rules/<its name>.cpp: the rule where `options` asks for it, nullptr where its setting leaves it off.
using MakeProcessor = std::unique_ptr<LogitsProcessor>(const SearchOptions& options, int vocab_size);
MakeProcessor make_repetition_penalty, make_token_run, make_piece_run, make_char_run, make_no_repeat_ngram,
    make_adjacent_repeat, make_numbers_from_source;
std::unique_ptr<FinishRule> make_closes_marks(const SearchOptions& options);

LogitsProcessors make_logits_processors(const SearchOptions& options, int vocab_size) {
    LogitsProcessors out;
    for (MakeProcessor* make : {make_repetition_penalty, make_token_run, make_piece_run, make_char_run,
                                make_no_repeat_ngram, make_adjacent_repeat, make_numbers_from_source})
        if (std::unique_ptr<LogitsProcessor> p = make(options, vocab_size)) out.push_back(std::move(p));
    return out;
}

void apply_logits_processors(LogitsProcessors& processors, float* logits, const int* generated, int length) {
    for (const auto& p : processors) p->see(logits);
    for (const auto& p : processors) p->apply(logits, generated, length);
}

FinishRules make_finish_rules(const SearchOptions& options) {
    FinishRules out;
    if (std::unique_ptr<FinishRule> r = make_closes_marks(options)) out.push_back(std::move(r));
    return out;
}

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
