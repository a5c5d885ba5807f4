#include "train/translation_corpus.h"

#include "data/data_dir.h"
#include "data/multi30k.h"
#include "data/nonbreaking_prefix_file.h"
#include "error.h"

#include <sstream>

namespace attend {
namespace {

std::vector<std::string> split_spaces(const std::string& line) {
    std::vector<std::string> out;
    std::istringstream in(line);
    for (std::string t; in >> t;) out.push_back(t);
    return out;
}

const std::vector<std::string> kReserved{"<pad>", "<bos>", "<eos>"};

}  // namespace

void to_json(nlohmann::json& j, const CorpusOptions& o) {
    j = {{"dataset", o.dataset}, {"source_lang", o.source_lang}, {"target_lang", o.target_lang},
         {"bpe_merges", o.bpe_merges}, {"min_freq", o.min_freq}, {"joint_vocab", o.joint_vocab},
         {"max_train_sentences", o.max_train_sentences}, {"max_tokens_per_sentence", o.max_tokens_per_sentence}};
}

void from_json(const nlohmann::json& j, CorpusOptions& o) {
    o.dataset = j.value("dataset", o.dataset);
    o.source_lang = j.value("source_lang", o.source_lang);
    o.target_lang = j.value("target_lang", o.target_lang);
    o.bpe_merges = j.value("bpe_merges", o.bpe_merges);
    o.min_freq = j.value("min_freq", o.min_freq);
    o.joint_vocab = j.value("joint_vocab", o.joint_vocab);
    o.max_train_sentences = j.value("max_train_sentences", o.max_train_sentences);
    o.max_tokens_per_sentence = j.value("max_tokens_per_sentence", o.max_tokens_per_sentence);
}

std::vector<int> encode_line(const std::string& tokenized_line, const TextPipeline& pipeline, const Vocab& vocab) {
    std::vector<std::string> tokens = split_spaces(tokenized_line);
    if (pipeline.bpe) tokens = pipeline.bpe->apply(tokens);
    return vocab.ids(tokens);
}

static ParallelText read_split(const CorpusOptions& o, const std::string& split) {
    if (o.dataset != "multi30k")
        throw Error("dataset '" + o.dataset + "' is not supported for Transformer training (expected multi30k)");
    const std::string dir = o.data_dir.empty() ? default_data_dir() : o.data_dir;
    return load_multi30k(dir, split, parse_lang(o.source_lang), parse_lang(o.target_lang), TextForm::tok);
}

TranslationCorpus prepare_corpus(const CorpusOptions& o) {
    ParallelText train = read_split(o, "train");
    if (o.max_train_sentences > 0 && static_cast<size_t>(o.max_train_sentences) < train.source.size()) {
        train.source.resize(o.max_train_sentences);
        train.target.resize(o.max_train_sentences);
    }
    const std::string dir = o.data_dir.empty() ? default_data_dir() : o.data_dir;
    TextPipeline src, tgt;
    src.lang = parse_lang(o.source_lang);
    tgt.lang = parse_lang(o.target_lang);
    src.prefixes = load_nonbreaking_prefixes(dir, src.lang);
    tgt.prefixes = load_nonbreaking_prefixes(dir, tgt.lang);
    if (o.bpe_merges > 0) {
        WordCounts counts = count_words(train.source);
        add_word_counts(counts, train.target);
        Bpe bpe = Bpe::learn(counts, o.bpe_merges);
        src.bpe = bpe;
        tgt.bpe = bpe;
    }
    auto tokens_of = [](const std::vector<std::string>& lines, const TextPipeline& p) {
        std::vector<std::vector<std::string>> out;
        out.reserve(lines.size());
        std::vector<std::string> applied = p.bpe ? p.bpe->apply_lines(lines) : lines;
        for (const std::string& line : applied) out.push_back(split_spaces(line));
        return out;
    };
    std::vector<std::vector<std::string>> src_tokens = tokens_of(train.source, src);
    std::vector<std::vector<std::string>> tgt_tokens = tokens_of(train.target, tgt);
    Vocab src_vocab, tgt_vocab;
    if (o.joint_vocab) {
        std::vector<std::vector<std::string>> all = src_tokens;
        all.insert(all.end(), tgt_tokens.begin(), tgt_tokens.end());
        src_vocab = Vocab(all, o.min_freq, kReserved);
        tgt_vocab = src_vocab;
    } else {
        src_vocab = Vocab(src_tokens, o.min_freq, kReserved);
        tgt_vocab = Vocab(tgt_tokens, o.min_freq, kReserved);
    }
    return encode_corpus(o, std::move(src), std::move(tgt), std::move(src_vocab), std::move(tgt_vocab));
}

TranslationCorpus encode_corpus(const CorpusOptions& o, TextPipeline source_pipeline, TextPipeline target_pipeline,
                                Vocab source_vocab, Vocab target_vocab) {
    TranslationCorpus c;
    c.source_pipeline = std::move(source_pipeline);
    c.target_pipeline = std::move(target_pipeline);
    c.source_vocab = std::move(source_vocab);
    c.target_vocab = std::move(target_vocab);
    ParallelText train = read_split(o, "train");
    if (o.max_train_sentences > 0 && static_cast<size_t>(o.max_train_sentences) < train.source.size()) {
        train.source.resize(o.max_train_sentences);
        train.target.resize(o.max_train_sentences);
    }
    auto encode_all = [](const std::vector<std::string>& lines, const TextPipeline& p, const Vocab& v) {
        std::vector<std::vector<int>> out;
        out.reserve(lines.size());
        std::vector<std::string> applied = p.bpe ? p.bpe->apply_lines(lines) : lines;
        for (const std::string& line : applied) out.push_back(v.ids(split_spaces(line)));
        return out;
    };
    std::vector<std::vector<int>> src = encode_all(train.source, c.source_pipeline, c.source_vocab);
    std::vector<std::vector<int>> tgt = encode_all(train.target, c.target_pipeline, c.target_vocab);
    for (size_t i = 0; i < src.size(); i++) {
        if (src[i].empty() || tgt[i].empty() || static_cast<int>(src[i].size()) > o.max_tokens_per_sentence ||
            static_cast<int>(tgt[i].size()) > o.max_tokens_per_sentence) {
            c.dropped_long++;
            continue;
        }
        c.train_source.push_back(std::move(src[i]));
        c.train_target.push_back(std::move(tgt[i]));
    }
    ParallelText val = read_split(o, "val");
    c.val_source = encode_all(val.source, c.source_pipeline, c.source_vocab);
    c.val_target = encode_all(val.target, c.target_pipeline, c.target_vocab);
    c.val_references = val.target;
    return c;
}

}  // namespace attend
