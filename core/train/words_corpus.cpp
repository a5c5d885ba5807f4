#include "train/words_corpus.h"

#include "error.h"
#include "text/d2l_preprocess.h"
#include "text/text_pipeline.h"

#include <algorithm>

namespace attend {
namespace {

// load_data_nmt preprocesses the whole file at once: a line's first character follows a newline (the source) or a
// tab (the target), which decides whether a mark there gets a space before it; the file's first line follows
// nothing.
std::vector<std::string> words_of(const std::string& text, const char* before) {
    const std::string prefixed = preprocess_nmt(std::string(before) + text);
    return split_words(std::string_view(prefixed).substr(std::char_traits<char>::length(before)));
}

std::string join_words(const std::vector<std::string>& words) {
    std::string line;
    for (const std::string& w : words) line += (line.empty() ? "" : " ") + w;
    return line;
}

}  // namespace

TranslationCorpus words_corpus(const std::vector<SentencePair>& pairs, std::size_t train, std::size_t valid,
                               int min_freq, Lang source, Lang target, const Vocab* source_vocab,
                               const Vocab* target_vocab) {
    train = std::min(train, pairs.size());
    valid = std::min(valid, pairs.size() - train);
    if (train == 0) throw Error("training: no sentence pairs to train on");
    std::vector<std::vector<std::string>> src, tgt;
    for (std::size_t i = 0; i < train + valid; i++) {
        try {
            src.push_back(words_of(pairs[i].source, i == 0 ? "" : "\n"));
            tgt.push_back(words_of(pairs[i].target, "\t"));
        } catch (const Error& e) {
            throw Error("sentence pair " + std::to_string(i + 1) + ": " + e.what());
        }
    }
    const std::vector<std::string> reserved{"<pad>", "<bos>", "<eos>"};
    const std::vector<std::vector<std::string>> train_src(src.begin(), src.begin() + train),
        train_tgt(tgt.begin(), tgt.begin() + train);
    TranslationCorpus c;
    c.source_pipeline = d2l_words_pipeline(source);
    c.target_pipeline = d2l_words_pipeline(target);
    c.source_vocab = source_vocab ? *source_vocab : Vocab(train_src, min_freq, reserved);
    c.target_vocab = target_vocab ? *target_vocab : Vocab(train_tgt, min_freq, reserved);
    for (std::size_t i = 0; i < train + valid; i++) {
        const bool trains = i < train;
        (trains ? c.train_source : c.val_source).push_back(c.source_vocab.ids(src[i]));
        (trains ? c.train_target : c.val_target).push_back(c.target_vocab.ids(tgt[i]));
        if (!trains) c.val_references.push_back(join_words(tgt[i]));
    }
    return c;
}

}  // namespace attend
