// SearchOptions::max_token_run: no token more than n times in a row.
#include "decode/logits_processor.h"

namespace attend {
namespace {

class TokenRun final : public LogitsProcessor {
public:
    TokenRun(int n, int vocab_size) : n_(n), vocab_(vocab_size) {}
    void apply(float* logits, const int* generated, int length) override {
        if (length < n_) return;
        const int token = generated[length - 1];
        if (token >= 0 && token < vocab_ && ends_with_run(generated, length, n_)) logits[token] = kForbidden;
    }

private:
    int n_, vocab_;
};

}  // namespace

std::unique_ptr<LogitsProcessor> make_token_run(const SearchOptions& options, int vocab_size) {
    const int n = not_negative(options.max_token_run, "max_token_run");
    return n > 0 ? std::make_unique<TokenRun>(n, vocab_size) : nullptr;
}

}  // namespace attend
