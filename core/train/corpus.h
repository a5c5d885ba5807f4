// A parallel corpus ready for training a translator, wherever it came from (files natively:
// native/train/translation_corpus.h; pairs given in memory: train/training_session.h): the text pipelines, the
// vocabularies, and every split as token ids.
#pragma once
#include "text/text_pipeline.h"
#include "text/vocab.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace attend {

struct TranslationCorpus {
    TextPipeline source_pipeline, target_pipeline;
    Vocab source_vocab, target_vocab;
    // Token ids without specials; the trainer adds <eos> to sources and <bos>/<eos> to targets.
    std::vector<std::vector<int>> train_source, train_target, val_source, val_target;
    std::vector<std::string> val_references;  // tokenized target lines (for BLEU), lowercased unless cased
    std::vector<std::string> val_source_text, val_target_text;  // files: the validation pairs as read (the run keeps them)
    int dropped_long = 0;   // pairs with a side over max_tokens_per_sentence
    int dropped_empty = 0;  // pairs with an empty side (an empty line in the data or a --train-target/--train-source file)
    // files: what was read and what became of it (sources, checksums, counts by reason, the held-out split, the
    // subword model): the run's data.json and the model card's "corpus".
    nlohmann::json record;
};

}  // namespace attend
