// A parallel corpus ready for training a translator: the tokenizer pipelines (with the BPE learned on the
// training text), the vocabularies, and every split as token ids. Three sources of data:
//   multi30k  the tokenized tok/ files (or the raw files tokenized with case kept), joint BPE, train and val
//             splits (moses+bpe pipelines)
//   tatoeba   the d2l fra-eng pairs (d2l's own tatoeba/d2l/fra.txt.gz): the first max_train_sentences pairs train, the next
//             val_sentences pairs validate; the seeds' preprocess_nmt and word split (d2l-words pipelines), word
//             vocabularies with min_freq and <unk> <pad> <bos> <eos> (load_data_nmt); English -> French only
//   files     any corpus in any language (train/file_corpus.h): training sets given as files (data/parallel_corpus.h),
//             validation sets given or held out by source sentence, one SentencePiece model learned on the raw
//             training text of both sides (sentencepiece pipelines, a joint vocabulary)
#pragma once
#include "text/text_pipeline.h"
#include "train/corpus.h"
#include "train/train_options.h"
#include "text/vocab.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace attend {



// Reads the training and validation text, learns the BPE (multi30k), builds the vocabularies and encodes.
TranslationCorpus prepare_corpus(const CorpusOptions& options);

// Same, but with pipelines and vocabularies given (resuming from a checkpoint: nothing is relearned).
TranslationCorpus encode_corpus(const CorpusOptions& options, TextPipeline source_pipeline, TextPipeline target_pipeline,
                                Vocab source_vocab, Vocab target_vocab);

// Where the training pairs come from when files give some of them ("the references + targets from teacher.de +
// sources from bt.en"; files of one side joined by " and "); empty when they are the data set's own.
std::string describe_training_pairs(const CorpusOptions& options);

// Space-separated BPE tokens of a tokenized line -> ids.
std::vector<int> encode_line(const std::string& tokenized_line, const TextPipeline& pipeline, const Vocab& vocab);

}  // namespace attend
