#include "train/translation_corpus.h"

#include "data/data_dir.h"
#include "data/multi30k.h"
#include "data/nonbreaking_prefix_file.h"
#include "data/tatoeba.h"
#include "data/text_file.h"
#include "train/file_corpus.h"
#include "train/words_corpus.h"
#include "error.h"
#include "text/moses_pipeline.h"

#include <algorithm>
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

std::vector<int> encode_line(const std::string& tokenized_line, const TextPipeline& pipeline, const Vocab& vocab) {
    std::vector<std::string> tokens = split_spaces(tokenized_line);
    if (pipeline.bpe) tokens = pipeline.bpe->apply(tokens);
    return vocab.ids(tokens);
}

namespace {

// Tatoeba: the seeds' words of the first max_train_sentences + val_sentences pairs of d2l's fra.txt.
TranslationCorpus tatoeba_corpus(const CorpusOptions& o, const Vocab* source_vocab = nullptr,
                                 const Vocab* target_vocab = nullptr) {
    if (o.source_lang != "en" || o.target_lang != "fr")
        throw Error("dataset 'tatoeba' is English -> French (eng-fra), got " + o.source_lang + " -> " + o.target_lang);
    if (o.max_train_sentences <= 0)
        throw Error("dataset 'tatoeba': max_train_sentences must be set (the seeds use 600), got " +
                    std::to_string(o.max_train_sentences));
    const std::string dir = o.data_dir.empty() ? default_data_dir() : o.data_dir;
    const size_t n_train = static_cast<size_t>(o.max_train_sentences), n_val = static_cast<size_t>(std::max(0, o.val_sentences));
    const TatoebaPairs read = read_tatoeba(tatoeba_path(dir), n_train + n_val);
    if (read.english.size() < n_train + n_val)
        throw Error(tatoeba_path(dir) + " has " + std::to_string(read.english.size()) + " pairs, expected at least " +
                    std::to_string(n_train + n_val) + " (training + validation)");
    std::vector<SentencePair> pairs;
    for (size_t i = 0; i < read.english.size(); i++) pairs.push_back({read.english[i], read.french[i]});
    return words_corpus(pairs, n_train, n_val, o.min_freq, Lang::en, Lang::fr, source_vocab, target_vocab);
}

}  // namespace

// The text pipeline (without BPE) a multi30k run tokenizes with; the cased one is the official preprocessing
// minus its lowercasing step.
static TextPipeline moses_pipeline_for(const CorpusOptions& o, const std::string& dir, const std::string& lang) {
    TextPipeline p;
    p.lang = parse_lang(lang);
    p.prefixes = load_nonbreaking_prefixes(dir, p.lang);
    p.moses.lowercase = !o.cased;
    return p;
}

// A split as tokenized lines: the official tok/ files, or the raw files through the cased pipeline.
static ParallelText read_split(const CorpusOptions& o, const std::string& split) {
    if (o.dataset != "multi30k")
        throw Error("dataset '" + o.dataset + "' is not supported for training (expected multi30k or tatoeba)");
    const std::string dir = o.data_dir.empty() ? default_data_dir() : o.data_dir;
    const Lang source = parse_lang(o.source_lang), target = parse_lang(o.target_lang);
    if (!o.cased) return load_multi30k(dir, split, source, target, TextForm::tok);
    ParallelText text = load_multi30k(dir, split, source, target, TextForm::raw);
    const TextPipeline sp = moses_pipeline_for(o, dir, o.source_lang), tp = moses_pipeline_for(o, dir, o.target_lang);
#pragma omp parallel for schedule(dynamic, 256)
    for (long i = 0; i < static_cast<long>(text.source.size()); i++) {
        text.source[i] = moses_preprocess_line(text.source[i], sp.lang, sp.prefixes, sp.moses);
        text.target[i] = moses_preprocess_line(text.target[i], tp.lang, tp.prefixes, tp.moses);
    }
    return text;
}

static void check_training_targets(const CorpusOptions& o) {
    if (o.with_references && o.train_target_files.empty())
        throw Error("training on the references as well as a file's targets needs the file (--train-target)");
}

// Whether the data set's own pairs are among the training pairs: unless target files replace them.
static bool keeps_own_pairs(const CorpusOptions& o) { return o.train_target_files.empty() || o.with_references; }

// The first max_sentences pairs of text (all where max_sentences is 0).
static void keep_first(ParallelText& text, int max_sentences) {
    if (max_sentences > 0 && static_cast<size_t>(max_sentences) < text.source.size()) {
        text.source.resize(max_sentences);
        text.target.resize(max_sentences);
    }
}

// A file with a line for each of the data set's n_all training pairs, its first n lines preprocessed as the
// data set's `lang` side is.
static std::vector<std::string> read_aligned_lines(const CorpusOptions& o, const std::string& path, size_t n_all,
                                                   size_t n, const std::string& lang) {
    std::vector<std::string> lines = read_lines(path);
    if (lines.size() != n_all)
        throw Error(path + " has " + std::to_string(lines.size()) + " lines, expected one for each of the " +
                    std::to_string(n_all) + " training pairs");
    lines.resize(n);
    const std::string dir = o.data_dir.empty() ? default_data_dir() : o.data_dir;
    const TextPipeline p = moses_pipeline_for(o, dir, lang);
#pragma omp parallel for schedule(dynamic, 256)
    for (long i = 0; i < static_cast<long>(lines.size()); i++)
        lines[i] = moses_preprocess_line(lines[i], p.lang, p.prefixes, p.moses);
    return lines;
}

// The training pairs, each part over the data set's training split (its first max_train_sentences pairs where that
// is set), in this order: the data set's own pairs (unless target files replace them, or with_references keeps
// them beside them), the sources with each target file's lines, each source file's lines with the references.
static ParallelText read_training_pairs(const CorpusOptions& o) {
    check_training_targets(o);
    ParallelText own = read_split(o, "train");
    const size_t n_all = own.source.size();  // a file has a line for each pair, whatever the limit
    keep_first(own, o.max_train_sentences);
    const size_t n = own.source.size();
    if (o.train_target_files.empty() && o.train_source_files.empty()) return own;
    ParallelText train;
    auto add = [&train](const std::vector<std::string>& source, const std::vector<std::string>& target) {
        train.source.insert(train.source.end(), source.begin(), source.end());
        train.target.insert(train.target.end(), target.begin(), target.end());
    };
    if (keeps_own_pairs(o)) add(own.source, own.target);
    for (const std::string& file : o.train_target_files)
        add(own.source, read_aligned_lines(o, file, n_all, n, o.target_lang));
    for (const std::string& file : o.train_source_files)
        add(read_aligned_lines(o, file, n_all, n, o.source_lang), own.target);
    return train;
}

std::string describe_training_pairs(const CorpusOptions& o) {
    if (o.train_target_files.empty() && o.train_source_files.empty()) return "";
    std::string out;
    auto add = [&out](const std::string& part) { out += (out.empty() ? "" : " + ") + part; };
    auto joined = [](const std::vector<std::string>& files) {
        std::string s;
        for (const std::string& f : files) s += (s.empty() ? "" : " and ") + f;
        return s;
    };
    if (keeps_own_pairs(o)) add("the references");
    if (!o.train_target_files.empty()) add("targets from " + joined(o.train_target_files));
    if (!o.train_source_files.empty()) add("sources from " + joined(o.train_source_files));
    return out;
}

TranslationCorpus prepare_corpus(const CorpusOptions& o) {
    if (o.dataset == "files") return prepare_file_corpus(o, nullptr);
    if (o.dataset == "tatoeba") return tatoeba_corpus(o);
    check_training_targets(o);  // before the BPE is learned, not after
    ParallelText train = read_split(o, "train");
    keep_first(train, o.max_train_sentences);
    const std::string dir = o.data_dir.empty() ? default_data_dir() : o.data_dir;
    TextPipeline src = moses_pipeline_for(o, dir, o.source_lang), tgt = moses_pipeline_for(o, dir, o.target_lang);
    if (o.bpe_merges > 0) {
        WordCounts counts = count_words(train.source);
        add_word_counts(counts, train.target);
        Bpe bpe = Bpe::learn(counts, o.bpe_merges, 2, o.split_digits);
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
    if (o.dataset == "files") return prepare_file_corpus(o, &c);
    if (o.dataset == "tatoeba") {
        TranslationCorpus words = tatoeba_corpus(o, &c.source_vocab, &c.target_vocab);
        words.source_pipeline = std::move(c.source_pipeline);
        words.target_pipeline = std::move(c.target_pipeline);
        return words;
    }
    ParallelText train = read_training_pairs(o);
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
        if (src[i].empty() || tgt[i].empty()) {
            c.dropped_empty++;
            continue;
        }
        if (static_cast<int>(src[i].size()) > o.max_tokens_per_sentence ||
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
