// Training data from any parallel corpus, in any language (CorpusOptions::dataset "files"): what `attend train
// --train A --valid B --test C` reads.
//
//   1. Test sets (if any) are read first: no sentence of theirs, on either side, may train the model, so a training
//      pair that shares a side with a test pair is dropped and counted.
//   2. Validation: the given sets, or valid_size distinct source sentences held out of the training sets (every
//      pair with such a source goes to validation; the choice is a hash of the sentence and split_seed, so it is
//      the same on every machine and on resume). A training pair that shares either side with a validation pair is
//      dropped and counted, so no validation sentence is trained on.
//   3. One SentencePiece model (unigram or BPE, byte fallback) is learned on a sample of the remaining training
//      text, both sides: the joint vocabulary (unless a resumed run brings its own).
//   4. The training pairs are encoded, each repeated by its source's weight; pairs with a side over
//      max_tokens_per_sentence pieces are dropped and counted.
// Every text goes through subword_text() first, as a translator's input does. The files are streamed three times;
// no file's text is held, only validation's and the ids.
#pragma once
#include "train/translation_corpus.h"

namespace attend {

// `given`: a resumed run's pipelines and vocabularies (nothing is learned); null: learn them.
TranslationCorpus prepare_file_corpus(const CorpusOptions& options, const TranslationCorpus* given);

}  // namespace attend
