#include "train/train_options.h"

#include <algorithm>
#include <utility>

namespace attend {
namespace {

// Each saved field of the options with its key, for to_json and from_json to share one list.
template <typename Options, typename Visit>
void each_saved_field(Options& o, Visit&& visit) {
    visit("dataset", o.dataset);
    visit("source_lang", o.source_lang);
    visit("target_lang", o.target_lang);
    visit("bpe_merges", o.bpe_merges);
    visit("min_freq", o.min_freq);
    visit("joint_vocab", o.joint_vocab);
    visit("max_train_sentences", o.max_train_sentences);
    visit("max_tokens_per_sentence", o.max_tokens_per_sentence);
    visit("val_sentences", o.val_sentences);
    visit("cased", o.cased);
    visit("split_digits", o.split_digits);
    visit("train_target_files", o.train_target_files);
    visit("with_references", o.with_references);
    visit("train_source_files", o.train_source_files);
    visit("train_sets", o.train_sets);
    visit("valid_sets", o.valid_sets);
    visit("test_sets", o.test_sets);
    visit("valid_size", o.valid_size);
    visit("split_seed", o.split_seed);
    visit("subwords", o.subwords);
    visit("vocab_size", o.vocab_size);
    visit("character_coverage", o.character_coverage);
    visit("subword_sample", o.subword_sample);
    visit("max_line_bytes", o.max_line_bytes);
}

}  // namespace

void to_json(nlohmann::json& j, const CorpusOptions& o) {
    j = nlohmann::json::object();
    each_saved_field(o, [&j](const char* key, const auto& value) { j[key] = value; });
}

void from_json(const nlohmann::json& j, CorpusOptions& o) {
    o = CorpusOptions{};
    each_saved_field(o, [&j](const char* key, auto& value) {
        if (auto it = j.find(key); it != j.end()) it->get_to(value);
    });
    // Runs saved when each side took one file.
    for (auto [old_key, files] : {std::pair{"train_target_file", &o.train_target_files},
                                  std::pair{"train_source_file", &o.train_source_files}}) {
        auto it = j.find(old_key);
        if (it != j.end() && !j.contains(std::string(old_key) + "s") && !it->get<std::string>().empty())
            *files = {it->get<std::string>()};
    }
}

int64_t tokens_per_batch(const TrainOptions& o) {
    return o.num_steps > 0 ? int64_t(o.batch_size) * o.num_steps : int64_t(o.max_tokens);
}

int training_threads(int64_t parameters, int64_t tokens_per_batch, int available) {
    // About 6 flops per parameter per token (forward and backward). A step is hundreds of parallel regions, each a
    // wake-up and a barrier for the team: tens of microseconds on an idle machine, up to a scheduler's time slice
    // when another process holds a core. Below a few gigaflops a step those cost more than a second thread saves
    // (bahdanau-d2l, 0.2 GFLOP a step: 300 steps in 18 s on one thread, 213 s on two beside other work).
    constexpr double kMinFlopsForThreads = 4e9;
    const double flops = 6.0 * double(parameters) * double(tokens_per_batch);
    return flops < kMinFlopsForThreads ? 1 : std::max(1, available);
}

}  // namespace attend
