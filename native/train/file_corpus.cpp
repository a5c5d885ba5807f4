#include "train/file_corpus.h"

#include "data/data_dir.h"
#include "data/parallel_corpus.h"
#include "error.h"
#include "text/lang.h"
#include "text/sentencepiece_library.h"
#include "text/text_pipeline.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

namespace attend {
namespace {

const std::vector<std::string> kSpecials{"<unk>", "<pad>", "<bos>", "<eos>"};  // ids 0..3, as the trainer expects

std::uint64_t mix(std::uint64_t h) {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
}

// FNV-1a then a finalizer: a hash that is the same on every machine (std::hash is not).
std::uint64_t text_hash(std::string_view text, std::uint64_t seed) {
    std::uint64_t h = 1469598103934665603ull ^ mix(seed + 0x9E3779B97F4A7C15ull);
    for (char c : text) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    return mix(h);
}

// How many times pair `line` of a source of this weight is seen an epoch: the whole part of the weight, and one
// more for the fractional part's share of the pairs (chosen by line, the same on every run).
int copies_of(double weight, const std::string& spec, std::int64_t line) {
    const double whole = std::floor(weight), part = weight - whole;
    const double u = static_cast<double>(mix(text_hash(spec, static_cast<std::uint64_t>(line))) >> 11) / 9007199254740992.0;
    return static_cast<int>(whole) + (u < part ? 1 : 0);
}

struct Sources {
    std::vector<CorpusSource> train, valid, test;
};

// "{data}" in a file name is the data folder: a preset names the shared data sets wherever that folder is.
std::string with_data_dir(const std::string& spec, const std::string& data_dir) {
    static const std::string kData = "{data}";
    std::string out;
    std::size_t from = 0;
    for (std::size_t at = spec.find(kData); at != std::string::npos; at = spec.find(kData, from)) {
        out.append(spec, from, at - from).append(data_dir);
        from = at + kData.size();
    }
    return out.append(spec, from, std::string::npos);
}

Sources parse_sources(const CorpusOptions& o) {
    const std::string dir = o.data_dir.empty() ? default_data_dir() : o.data_dir;
    const auto parse = [&](const std::string& spec) { return parse_corpus_source(with_data_dir(spec, dir)); };
    Sources s;
    for (const std::string& spec : o.train_sets) s.train.push_back(parse(spec));
    for (const std::string& spec : o.valid_sets) s.valid.push_back(parse(spec));
    for (const std::string& spec : o.test_sets) s.test.push_back(parse(spec));
    return s;
}

void check_options(const CorpusOptions& o) {
    if (o.train_sets.empty()) throw Error("no training data: give --train FILE.tsv or --train SOURCE_FILE,TARGET_FILE");
    check_language_code(o.source_lang);
    check_language_code(o.target_lang);
    if (o.source_lang == o.target_lang)
        throw Error("the source and target languages are both '" + o.source_lang + "' (--source, --target)");
    if (o.subwords != "unigram" && o.subwords != "bpe")
        throw Error("subwords '" + o.subwords + "' is not known (expected unigram or bpe)");
    if (o.vocab_size < 300 || o.vocab_size > 256000)
        throw Error("vocabulary size " + std::to_string(o.vocab_size) +
                    " is out of range (expected 300 to 256000: the 4 specials and 256 byte pieces come first)");
    if (o.character_coverage < 0 || o.character_coverage > 1 || (o.character_coverage > 0 && o.character_coverage < 0.9))
        throw Error("character coverage " + std::to_string(o.character_coverage) +
                    " is out of range (expected 0.9 to 1, or 0 to choose by language)");
    if (o.valid_sets.empty() && o.valid_size < 1)
        throw Error("valid_size is " + std::to_string(o.valid_size) + ": give --valid or hold out at least 1 sentence");
    if (o.max_line_bytes < 16) throw Error("max_line_bytes " + std::to_string(o.max_line_bytes) + " is too small");
}

// Each training pair in order, cleaned as a translator cleans its input, with the source it came from.
template <typename Visit>
std::vector<CorpusSourceReport> each_training_pair(const std::vector<CorpusSource>& sources,
                                                   const CorpusReadOptions& ro, Visit&& visit) {
    std::vector<CorpusSourceReport> reports;
    for (const CorpusSource& source : sources)
        reports.push_back(read_corpus_source(
            source,
            [&](std::string_view s, std::string_view t, std::int64_t line) {
                visit(source, subword_text(s), subword_text(t), line);
            },
            ro));
    return reports;
}

}  // namespace

TranslationCorpus prepare_file_corpus(const CorpusOptions& o, const TranslationCorpus* given) {
    check_options(o);
    const Sources sources = parse_sources(o);
    CorpusReadOptions ro;
    ro.max_line_bytes = static_cast<std::size_t>(o.max_line_bytes);
    const std::uint64_t seed = static_cast<std::uint64_t>(o.split_seed);
    nlohmann::json record = {{"source_language", o.source_lang}, {"target_language", o.target_lang}};

    // 1. Test sentences: never trained on.
    std::unordered_set<std::string> test_text;
    nlohmann::json test_reports = nlohmann::json::array();
    for (const CorpusSource& source : sources.test)
        test_reports.push_back(read_corpus_source(
            source,
            [&](std::string_view s, std::string_view t, std::int64_t) {
                test_text.insert(subword_text(s));
                test_text.insert(subword_text(t));
            },
            ro));
    if (!sources.test.empty()) record["test"] = test_reports;

    // 2. Validation pairs: given, or held out by source sentence.
    std::vector<std::pair<std::string, std::string>> valid;
    std::uint64_t held_below = 0;  // a training pair whose source hashes below this is held out
    const bool hold_out = sources.valid.empty();
    if (!hold_out) {
        nlohmann::json reports = nlohmann::json::array();
        for (const CorpusSource& source : sources.valid)
            reports.push_back(read_corpus_source(
                source,
                [&](std::string_view s, std::string_view t, std::int64_t) {
                    valid.emplace_back(subword_text(s), subword_text(t));
                },
                ro));
        record["valid"] = reports;
    } else {
        std::vector<std::uint64_t> hashes;
        each_training_pair(sources.train, ro, [&](const CorpusSource&, const std::string& s, const std::string&, std::int64_t) {
            hashes.push_back(text_hash(s, seed));
        });
        std::sort(hashes.begin(), hashes.end());
        hashes.erase(std::unique(hashes.begin(), hashes.end()), hashes.end());
        if (hashes.size() < static_cast<size_t>(o.valid_size) * 2)
            throw Error("the training data has " + std::to_string(hashes.size()) +
                        " distinct source sentences: too few to hold out " + std::to_string(o.valid_size) +
                        " for validation (give --valid-size N, at most half of them, or --valid FILES)");
        held_below = hashes[static_cast<size_t>(o.valid_size) - 1] + 1;
    }

    // Pass over the training pairs: the held-out ones, and the subword model's sample (reservoir sampling: every
    // sentence has the same chance, whatever the corpus's size).
    std::vector<std::string> sample;
    std::int64_t sample_seen = 0;
    std::mt19937_64 rng(mix(seed + 17));
    const bool learn = given == nullptr;
    const size_t sample_cap = static_cast<size_t>(std::max(1, o.subword_sample));
    auto offer_sample = [&](const std::string& text) {
        sample_seen++;
        if (sample.size() < sample_cap) {
            sample.push_back(text);
            return;
        }
        const std::uint64_t at = rng() % static_cast<std::uint64_t>(sample_seen);
        if (at < sample_cap) sample[at] = text;
    };
    if (hold_out || learn)
        each_training_pair(sources.train, ro, [&](const CorpusSource&, const std::string& s, const std::string& t, std::int64_t) {
            if (hold_out && text_hash(s, seed) < held_below) {
                valid.emplace_back(s, t);
                return;
            }
            if (learn && !test_text.count(s) && !test_text.count(t)) {
                offer_sample(s);
                offer_sample(t);
            }
        });
    if (valid.empty()) throw Error("the validation data holds no pair");
    if (hold_out)
        record["valid"] = {{"held_out_from_training", true},
                           {"source_sentences", o.valid_size},
                           {"pairs", valid.size()},
                           {"split_seed", o.split_seed}};
    std::unordered_set<std::string> valid_text;
    for (const auto& [s, t] : valid) {
        valid_text.insert(s);
        valid_text.insert(t);
    }

    // 3. The subword model and the vocabulary.
    TranslationCorpus c;
    if (given) {
        if (given->source_pipeline.type != TextPipelineType::sentencepiece ||
            given->target_pipeline.type != TextPipelineType::sentencepiece)
            throw Error("a corpus of files needs a model with sentencepiece pipelines (the run's own or --start-from's)");
        c.source_pipeline = given->source_pipeline;
        c.target_pipeline = given->target_pipeline;
        c.source_vocab = given->source_vocab;
        c.target_vocab = given->target_vocab;
    } else {
        if (sample.empty()) throw Error("no training text is left to learn the subword model from");
        SentencePieceTrainOptions so;
        so.algorithm = o.subwords == "bpe" ? SentencePieceModel::Algorithm::bpe : SentencePieceModel::Algorithm::unigram;
        so.vocab_size = o.vocab_size;
        so.character_coverage = o.character_coverage > 0 ? o.character_coverage
                                : is_unspaced_language(o.source_lang) || is_unspaced_language(o.target_lang) ? 0.9995
                                                                                                                : 1.0;
        so.split_digits = o.split_digits;
        std::shared_ptr<const SentencePieceModel> model;
        try {
            model = std::make_shared<const SentencePieceModel>(train_sentencepiece(sample, so));
        } catch (const Error& e) {
            throw Error(std::string(e.what()) + " (--vocab-size " + std::to_string(o.vocab_size) +
                        ", --character-coverage " + std::to_string(so.character_coverage) + ")");
        }
        record["subwords"] = {{"algorithm", o.subwords},
                              {"vocab_size", model->size()},
                              {"character_coverage", so.character_coverage},
                              {"split_digits", so.split_digits},
                              {"sentences", sample.size()},
                              {"of_sentences", sample_seen}};
        sample.clear();
        sample.shrink_to_fit();
        c.source_pipeline = sentencepiece_pipeline(o.source_lang, model);
        c.target_pipeline = sentencepiece_pipeline(o.target_lang, model);
        std::vector<std::string> tokens;
        for (const SentencePieceModel::Piece& p : model->pieces()) tokens.push_back(p.text);
        for (size_t i = 0; i < kSpecials.size(); i++)
            if (tokens.size() <= i || tokens[i] != kSpecials[i])
                throw Error("the subword model's piece " + std::to_string(i) + " is not " + kSpecials[i]);
        c.source_vocab = Vocab::from_id_order(tokens);
        c.target_vocab = c.source_vocab;
    }
    if (language_code(c.source_pipeline) != o.source_lang || language_code(c.target_pipeline) != o.target_lang)
        throw Error("the model translates " + language_code(c.source_pipeline) + "-" + language_code(c.target_pipeline) +
                    ", the run is for " + o.source_lang + "-" + o.target_lang + " (--source, --target)");

    // 4. The training pairs as ids, a chunk at a time (encoded in parallel).
    auto encode = [](const std::string& text, const TextPipeline& p, const Vocab& v) {
        return v.ids(p.sentencepiece->encode_pieces(text));
    };
    std::int64_t overlaps_valid = 0, overlaps_test = 0;
    struct Pending {
        std::string source, target;
        int copies;
    };
    std::vector<Pending> chunk;
    auto flush = [&] {
        std::vector<std::vector<int>> src(chunk.size()), tgt(chunk.size());
#pragma omp parallel for schedule(dynamic, 64)
        for (long i = 0; i < static_cast<long>(chunk.size()); i++) {
            src[i] = encode(chunk[i].source, c.source_pipeline, c.source_vocab);
            tgt[i] = encode(chunk[i].target, c.target_pipeline, c.target_vocab);
        }
        for (size_t i = 0; i < chunk.size(); i++) {
            if (static_cast<int>(src[i].size()) > o.max_tokens_per_sentence ||
                static_cast<int>(tgt[i].size()) > o.max_tokens_per_sentence) {
                c.dropped_long++;
                continue;
            }
            for (int k = 0; k < chunk[i].copies; k++) {
                c.train_source.push_back(src[i]);
                c.train_target.push_back(tgt[i]);
            }
        }
        chunk.clear();
    };
    std::vector<std::int64_t> used(sources.train.size(), 0);
    std::vector<CorpusSourceReport> reports = each_training_pair(
        sources.train, ro, [&](const CorpusSource& source, const std::string& s, const std::string& t, std::int64_t line) {
            if (hold_out && text_hash(s, seed) < held_below) return;  // a validation pair
            if (valid_text.count(s) || valid_text.count(t)) {
                overlaps_valid++;
                return;
            }
            if (test_text.count(s) || test_text.count(t)) {
                overlaps_test++;
                return;
            }
            const int copies = copies_of(source.weight, source.spec, line);
            if (copies == 0) return;
            used[&source - sources.train.data()]++;
            chunk.push_back({s, t, copies});
            if (chunk.size() == 8192) flush();
        });
    flush();
    if (c.train_source.empty()) throw Error("no training pair is left (" + std::to_string(overlaps_valid) +
                                            " share a sentence with validation, " + std::to_string(overlaps_test) +
                                            " with a test set, " + std::to_string(c.dropped_long) + " too long)");
    nlohmann::json train = nlohmann::json::array();
    for (size_t i = 0; i < reports.size(); i++) {
        nlohmann::json r = reports[i];
        r["used"] = used[i];
        train.push_back(r);
    }
    record["train"] = train;
    record["dropped"] = {{"held_out_for_validation", hold_out ? static_cast<std::int64_t>(valid.size()) : 0},
                         {"shares_a_sentence_with_validation", overlaps_valid},
                         {"shares_a_sentence_with_a_test_set", overlaps_test},
                         {"too_many_pieces", c.dropped_long}};
    record["training_pairs"] = c.train_source.size();

    for (const auto& [s, t] : valid) {
        c.val_source.push_back(encode(s, c.source_pipeline, c.source_vocab));
        c.val_target.push_back(encode(t, c.target_pipeline, c.target_vocab));
        c.val_references.push_back(bleu_tokenized(t, c.target_pipeline));
        c.val_source_text.push_back(s);
        c.val_target_text.push_back(t);
    }
    c.record = std::move(record);
    return c;
}

}  // namespace attend
