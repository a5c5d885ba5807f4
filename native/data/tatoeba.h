// The Tatoeba English-French pairs the d2l chapters train on (load_data_nmt): the first N pairs of d2l's own
// fra.txt (English, French; an attribution column is allowed), d2l's preprocess_nmt, word tokenization, vocabularies with min_freq 2 and
// reserved <pad> <bos> <eos> (<unk> = 0), and fixed-length id arrays with valid lengths.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "text/d2l_preprocess.h"
#include "text/vocab.h"

namespace attend {

// DATA/tatoeba/d2l/fra.txt.gz: the file the d2l chapters download (its first pairs differ from eng-fra-5k.tsv's)
std::string tatoeba_path(const std::string& data_dir);

struct TatoebaPairs {
    std::vector<std::string> english, french;  // raw text
};

// The first `num_examples` pairs (all when 0). A non-empty line without a tab throws attend::Error naming the
// file and line; invalid UTF-8 names the line too.
TatoebaPairs read_tatoeba(const std::string& path, std::size_t num_examples = 0);

struct NmtData {
    std::vector<std::vector<std::string>> source, target;  // preprocessed words
    Vocab src_vocab, tgt_vocab;
    NmtArray src_array, tgt_array;  // ids + <eos>, padded to num_steps, with valid lengths
};

// d2l's load_data_nmt(batch_size, num_steps, num_examples) without the data iterator. Note: d2l's loop
// (`if i > num_examples: break`) actually keeps num_examples + 1 lines; this keeps exactly num_examples.
NmtData load_data_nmt(const std::string& path, int num_steps, std::size_t num_examples = 600);

}  // namespace attend
