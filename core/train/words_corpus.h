// The seeds' word corpus (d2l's load_data_nmt) from sentence pairs held in memory: each pair through d2l's
// preprocess_nmt and split into words as load_data_nmt reads its file, word vocabularies of the training pairs with
// min_freq and <unk> <pad> <bos> <eos>, the next pairs kept for validation. What the seeds' presets train on,
// natively from d2l's fra.txt and in the browser from pairs a person gives.
#pragma once
#include "text/lang.h"
#include "train/corpus.h"

#include <cstddef>
#include <string>
#include <vector>

namespace attend {

struct SentencePair {
    std::string source, target;  // raw text, valid UTF-8
};

// The first `train` pairs train and the next `valid` validate (fewer when there are fewer). Throws attend::Error
// naming the pair (1-based) whose text is not valid UTF-8, or when no pair trains. Given vocabularies (a resumed
// run's) encode the pairs instead of vocabularies learned from them.
TranslationCorpus words_corpus(const std::vector<SentencePair>& pairs, std::size_t train, std::size_t valid,
                               int min_freq, Lang source, Lang target, const Vocab* source_vocab = nullptr,
                               const Vocab* target_vocab = nullptr);

}  // namespace attend
