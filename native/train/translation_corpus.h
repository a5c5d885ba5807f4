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
#include "text/vocab.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace attend {

struct CorpusOptions {
    std::string data_dir;          // ../shared/data unless set
    std::string dataset = "multi30k";  // or "tatoeba", or "files"
    std::string source_lang = "en", target_lang = "de";
    int bpe_merges = 10000;        // joint BPE on source + target training text
    int min_freq = 1;              // vocabulary threshold (after BPE)
    bool joint_vocab = true;       // one vocabulary for both sides (required to tie embeddings)
    int max_train_sentences = 0;   // 0: all (tests use a few hundred)
    int max_tokens_per_sentence = 200;  // longer training pairs are dropped (and counted); tatoeba: never (the
                                        // trainer truncates to num_steps, as the seeds do)
    int val_sentences = 200;       // tatoeba: validation pairs after the training ones
    // multi30k: false trains on the official lowercased tok/ files; true on the raw, cased files run through the
    // same Moses normalization and tokenization without lowercasing (the model then writes capitals itself).
    bool cased = false;
    bool split_digits = false;     // BPE never merges a digit (numbers are copied digit by digit)
    // multi30k: training targets read from these files (raw text, a line for each training pair, e.g. teachers'
    // translations of the training sources: sequence-level knowledge distillation), each file's pairs in place of
    // the data set's. The BPE and the vocabularies are still learned on the data set's own text, so the model reads
    // and writes as its teachers do; validation scores against the real references.
    std::vector<std::string> train_target_files;
    // With train_target_files: the data set's own pairs are kept beside the files', so each training source appears
    // once with its reference and once with each file's target (distillation on both).
    bool with_references = false;
    // multi30k: training sources read from these files (raw text, a line for each training pair, e.g. reverse
    // models' translations of the training targets: back-translation), each paired with the data set's target and
    // added to the training pairs above.
    std::vector<std::string> train_source_files;

    // files: corpus sources (data/parallel_corpus.h: "a.en,a.de", "pairs.tsv:columns=2,1:weight=3"), any language
    // code in source_lang / target_lang.
    std::vector<std::string> train_sets;
    std::vector<std::string> valid_sets;  // none: valid_size source sentences of the training sets are held out
    // Their pairs' sentences (either side) never train: a training pair that shares a side with one is dropped.
    std::vector<std::string> test_sets;
    int valid_size = 1000;             // distinct source sentences held out (with every pair that has one)
    int split_seed = 1;                // which ones: fixed by this seed, not by the training seed
    std::string subwords = "unigram";  // SentencePiece algorithm: unigram or bpe
    int vocab_size = 8000;             // pieces, the four specials and 256 bytes included
    double character_coverage = 0;     // share of the characters the pieces cover; 0: 0.9995 for an unspaced
                                       // language (Chinese, Japanese, ...), else 1
    int subword_sample = 1000000;      // at most this many sentences (both sides) learn the subword model
    int max_line_bytes = 4096;         // a longer line is skipped and counted
};
// A key that is missing takes the default; data_dir belongs to each call, not to the run. A run saved with one
// file a side ("train_target_file": "a.de") reads as a list of that one.
void to_json(nlohmann::json& j, const CorpusOptions& o);
void from_json(const nlohmann::json& j, CorpusOptions& o);

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
