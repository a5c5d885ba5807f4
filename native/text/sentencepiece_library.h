// Training SentencePiece models with the SentencePiece library (libsentencepiece_train, native only), and
// reading a library model into Attend's portable SentencePieceModel (core/text/sentencepiece.h), whose encoder
// and decoder are checked id for id against the library by tests/parity.
//
// Models are always trained the way the portable encoder expects: the "identity" normalization rule (no
// character map), byte fallback, the ids <unk>=0 <pad>=1 <bos>=2 <eos>=3 (so the piece table in id order is
// the vocabulary), spaces as a prefix "▁".
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "text/sentencepiece.h"

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace attend {

struct SentencePieceTrainOptions {
    SentencePieceModel::Algorithm algorithm = SentencePieceModel::Algorithm::unigram;
    int vocab_size = 8000;  // all pieces, the 4 special ones and the 256 byte pieces included
    // The share of characters (by count) that get a piece of their own; the rarest others are left to the
    // byte pieces. 1.0 suits alphabetic languages; SentencePiece advises 0.9995 for Chinese or Japanese.
    double character_coverage = 1.0;
    int num_threads = 2;
    // 0: train on every sentence. Otherwise a sample of this many, chosen at random when shuffle is on
    // (seeded with `seed`, through the library's process-wide generator), else the first ones.
    std::uint64_t input_sentence_size = 0;
    bool shuffle_input_sentence = true;
    unsigned seed = 1;
    int max_sentence_length = 4192;  // bytes; longer sentences are left out of training
    bool split_digits = false;       // every digit a piece of its own
    bool verbose = false;            // the library's progress log on stderr
};

// Trains in memory (the sentences go to the library through its SentenceIterator). Throws attend::Error with
// the library's message when training fails (e.g. a vocabulary larger than the text allows).
SentencePieceModel train_sentencepiece(const std::vector<std::string>& sentences,
                                       const SentencePieceTrainOptions& options);

// The library's serialized ModelProto (a .model file's bytes) from the same training.
std::string train_sentencepiece_proto(const std::vector<std::string>& sentences,
                                      const SentencePieceTrainOptions& options);

// Reads a serialized ModelProto: the piece table (checked against what the library's processor reports for
// each id), the algorithm and the normalizer flags. Throws attend::Error for what the portable encoder does
// not do: a model type other than unigram and bpe, a normalization rule with a character map (nmt_nfkc ...),
// whitespace not escaped or treated as a suffix, a denormalizer, a custom unknown surface.
SentencePieceModel model_from_serialized_proto(std::string_view serialized);
SentencePieceModel model_from_processor(const sentencepiece::SentencePieceProcessor& processor);

}  // namespace attend
