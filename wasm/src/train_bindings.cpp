// The C interface of the training module (web/train.html), wrapped by attend-train.js: a translator trained in the
// page on sentence pairs, one batch at a time, on the same core as `attend train` (train/training_session.h), and
// the seeds' character language models trained on a text as `attend lm train` trains them (train/lm_training.h).
// Handles are small integers; a returned string stays valid until the next call. Every function catches C++
// exceptions: a failure returns 0 and attend_train_last_error() says why.
//
// Built with threads (attend-train-simd-mt, ATTEND_TRAIN_MAX_THREADS > 1), a translator trainer may train on several
// data-parallel ranks, one per thread (train/thread_ranks.h): every trainer of the module shares one group of
// threads, started with the first trainer that asks for more than one (the module's pool of Web Workers is sized to
// it), so all such trainers use the same count. The language models train on one thread.
#include "error.h"
#include "guarded.h"
#include "text/bleu.h"
#include "text/d2l_preprocess.h"
#include "text/lang.h"
#include "train/lm_training.h"
#include "train/presets.h"
#include "train/thread_ranks.h"
#include "train/training_session.h"
#include "train/words_corpus.h"
#include "translate/model_file.h"
#include "translate/translator.h"

#include <emscripten/emscripten.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#ifndef ATTEND_TRAIN_MAX_THREADS
#define ATTEND_TRAIN_MAX_THREADS 1
#endif

using namespace attend;

namespace {

std::string g_last_error, g_text;
std::vector<uint8_t> g_bytes;
std::vector<float> g_floats;
std::map<int, std::unique_ptr<ThreadedTrainingSession>> g_sessions;
std::shared_ptr<ThreadRanks> g_ranks;  // the threaded trainers' ranks; null until one asks for threads
std::map<int, std::unique_ptr<LmTrainingSession>> g_lm_sessions;
int g_next_handle = 1;

template <typename F>
auto guarded(F&& f, decltype(f()) on_error) -> decltype(f()) {
    return attend::guarded(g_last_error, std::forward<F>(f), on_error);
}

ThreadedTrainingSession& session(int handle) {
    auto it = g_sessions.find(handle);
    if (it == g_sessions.end()) throw Error("this trainer was disposed (handle " + std::to_string(handle) + ")");
    return *it->second;
}

LmTrainingSession& lm_session(int handle) {
    auto it = g_lm_sessions.find(handle);
    if (it == g_lm_sessions.end())
        throw Error("this language model trainer was disposed (handle " + std::to_string(handle) + ")");
    return *it->second;
}

// The presets a page can train: the seeds' word-level models (their text needs no subword model learned first).
TrainOptions browser_preset(const std::string& name) {
    TrainOptions o = train_preset(name);
    if (o.corpus.dataset != "tatoeba")
        throw Error("preset '" + name + "' trains on files; in the page: bahdanau-d2l or transformer-d2l");
    o.threads = 1;
    return o;
}

// The ranks of a trainer on `threads` threads (null for one).
std::shared_ptr<ThreadRanks> thread_ranks(int threads) {
    if (threads < 1 || threads > ATTEND_TRAIN_MAX_THREADS)
        throw Error("threads must be 1 to " + std::to_string(ATTEND_TRAIN_MAX_THREADS) + " in this build" +
                    (ATTEND_TRAIN_MAX_THREADS == 1 ? " (the module without threads)" : "") + ", got " +
                    std::to_string(threads));
    if (threads == 1) return nullptr;
    if (!g_ranks) g_ranks = std::make_shared<ThreadRanks>(threads);
    if (g_ranks->size() != threads)
        throw Error("this module's trainers train on " + std::to_string(g_ranks->size()) +
                    " threads (the first to ask for threads chose them), not " + std::to_string(threads));
    return g_ranks;
}

// "source<TAB>target[<TAB>anything]" lines; blank lines skipped; a line without a tab is named.
std::vector<SentencePair> parse_pairs(const std::string& tsv) {
    std::vector<SentencePair> pairs;
    size_t line_no = 0;
    for (size_t begin = 0; begin < tsv.size(); line_no++) {
        const size_t end = std::min(tsv.find('\n', begin), tsv.size());
        std::string line = tsv.substr(begin, end - begin);
        begin = end + 1;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.find_first_not_of(" \t") == std::string::npos) continue;
        const size_t tab = line.find('\t');
        if (tab == std::string::npos)
            throw Error("line " + std::to_string(line_no + 1) + " has no tab (expected source<TAB>target)");
        const size_t tab2 = line.find('\t', tab + 1);  // further columns (an attribution) are not read
        pairs.push_back({line.substr(0, tab), line.substr(tab + 1, tab2 == std::string::npos ? tab2 : tab2 - tab - 1)});
    }
    return pairs;
}

}  // namespace

extern "C" {

EMSCRIPTEN_KEEPALIVE const char* attend_train_last_error() { return g_last_error.c_str(); }

// options: {"trainPairs", "validPairs", "seed", "lr", "epochs", "threads"} (the preset's when absent; epochs is the run's
// length, which the caller keeps: step() trains on past it when asked; threads: data-parallel ranks, 1 by default).
// Returns a handle.
EMSCRIPTEN_KEEPALIVE int attend_trainer_create(const char* preset, const char* tsv, const char* options_json) {
    return guarded([&] {
        TrainOptions o = browser_preset(preset);
        const nlohmann::json opt = nlohmann::json::parse(options_json && *options_json ? options_json : "{}");
        const std::vector<SentencePair> pairs = parse_pairs(tsv);
        const size_t train = opt.value("trainPairs", static_cast<size_t>(o.corpus.max_train_sentences));
        const size_t valid = opt.value("validPairs", static_cast<size_t>(o.corpus.val_sentences));
        if (train < 1 || train > 100000) throw Error("trainPairs must be 1 to 100000, got " + std::to_string(train));
        if (opt.contains("seed")) o.seed = opt["seed"].get<uint64_t>();
        if (opt.contains("lr")) o.lr = opt["lr"].get<float>();
        if (opt.contains("epochs")) o.epochs = opt["epochs"].get<int>();
        if (o.epochs < 1 || o.epochs > 100000) throw Error("epochs must be 1 to 100000, got " + std::to_string(o.epochs));
        if (!(o.lr > 0 && std::isfinite(o.lr))) throw Error("lr must be a positive number");
        std::shared_ptr<ThreadRanks> ranks = thread_ranks(opt.value("threads", 1));
        o.corpus.max_train_sentences = static_cast<int>(std::min(train, pairs.size()));
        o.corpus.val_sentences = static_cast<int>(valid);
        auto s = std::make_unique<ThreadedTrainingSession>(
            o, words_corpus(pairs, train, valid, o.corpus.min_freq, Lang::en, Lang::fr), std::move(ranks));
        const int h = g_next_handle++;
        g_sessions[h] = std::move(s);
        return h;
    }, 0);
}

EMSCRIPTEN_KEEPALIVE void attend_trainer_free(int handle) { g_sessions.erase(handle); }

// The most threads a trainer of this build can have (1: the module without threads).
EMSCRIPTEN_KEEPALIVE int attend_train_max_threads() { return ATTEND_TRAIN_MAX_THREADS; }

// The threads (data-parallel ranks) the trainer trains on; 0 for a disposed one.
EMSCRIPTEN_KEEPALIVE int attend_trainer_threads(int handle) {
    return guarded([&] { return session(handle).threads(); }, 0);
}

// {"preset", "architecture", "parameters", "trainPairs", "validPairs", "sourceVocab", "targetVocab", "threads",
// "options"}
EMSCRIPTEN_KEEPALIVE const char* attend_trainer_info(int handle) {
    return guarded([&] {
        const TrainingSession& s = session(handle).session();
        const TranslationCorpus& c = s.corpus();
        g_text = nlohmann::json{{"preset", s.options().preset},
                                {"architecture", s.options().architecture},
                                {"parameters", s.model().parameters().size()},
                                {"trainPairs", c.train_source.size()},
                                {"validPairs", c.val_source.size()},
                                {"sourceVocab", c.source_vocab.size()},
                                {"targetVocab", c.target_vocab.size()},
                                {"threads", session(handle).threads()},
                                {"options", train_options_to_json(s.options())}}
                     .dump();
        return g_text.c_str();
    }, static_cast<const char*>(nullptr));
}

// Trains `steps` batches; [{"step", "epoch", "batch", "batches", "lr", "loss", "epochDone", "epochLoss"}, ...].
EMSCRIPTEN_KEEPALIVE const char* attend_trainer_step(int handle, int steps) {
    return guarded([&] {
        if (steps < 1 || steps > 100000) throw Error("steps must be 1 to 100000, got " + std::to_string(steps));
        ThreadedTrainingSession& s = session(handle);
        nlohmann::json out = nlohmann::json::array();
        for (int i = 0; i < steps; i++) {
            const SessionStep r = s.step();
            nlohmann::json j = {{"step", r.step}, {"epoch", r.epoch}, {"batch", r.batch}, {"batches", r.batches},
                                {"lr", r.lr}, {"loss", r.loss.mean}, {"epochDone", r.epoch_done}};
            if (r.epoch_done) j["epochLoss"] = s.session().epoch_loss();
            out.push_back(std::move(j));
        }
        g_text = out.dump();
        return g_text.c_str();
    }, static_cast<const char*>(nullptr));
}

// {"valLoss", "valBleu"} over the validation pairs (greedy BLEU, as `attend train` reports it).
EMSCRIPTEN_KEEPALIVE const char* attend_trainer_validate(int handle) {
    return guarded([&] {
        TrainingSession& s = session(handle).session();
        g_text = nlohmann::json{{"valLoss", s.validation_loss()}, {"valBleu", s.validation_bleu(0)}}.dump();
        return g_text.c_str();
    }, static_cast<const char*>(nullptr));
}

// Greedy translation by the model as it is now, with its cross attention: {"text", "sourceTokens", "targetTokens",
// "attention": {"layers", "heads", "rows", "cols"}}; the weights are read by attend_trainer_floats. With a reference
// (non-empty), also "bleu": the seeds' bleu(translation, reference, k=2) on the model's words, as their table prints.
EMSCRIPTEN_KEEPALIVE const char* attend_trainer_translate(int handle, const char* text, const char* reference) {
    return guarded([&] {
        const TrainingSession& s = session(handle).session();
        TranslationOptions opt;
        opt.beam_size = 1;
        opt.return_attention = true;
        const TranslationResult r = Translator::borrowing(s.model()).translate(text, opt);
        g_floats = r.cross.data;
        nlohmann::json j = {{"text", r.text},
                            {"sourceTokens", r.source_tokens},
                            {"targetTokens", r.target_tokens},
                            {"attention",
                             {{"layers", r.cross.layers}, {"heads", r.cross.heads}, {"rows", r.cross.rows},
                              {"cols", r.cross.cols}}}};
        if (reference && *reference) {
            std::vector<std::string> words(r.target_tokens.begin(), r.target_tokens.end());
            if (!words.empty() && words.back() == "<eos>") words.pop_back();
            j["bleu"] = bleu(words, split_words(preprocess_nmt(reference)), 2);
        }
        g_text = j.dump();
        return g_text.c_str();
    }, static_cast<const char*>(nullptr));
}

EMSCRIPTEN_KEEPALIVE const float* attend_trainer_floats() { return g_floats.data(); }
EMSCRIPTEN_KEEPALIVE int attend_trainer_floats_length() { return static_cast<int>(g_floats.size()); }

// The model as a model file (F32), which Attend.load and `attend translate` read; its bytes by
// attend_trainer_bytes_length.
EMSCRIPTEN_KEEPALIVE const uint8_t* attend_trainer_export(int handle) {
    return guarded([&] {
        g_bytes = save_translator_model(session(handle).session().model(), DType::F32);
        return g_bytes.data();
    }, static_cast<uint8_t*>(nullptr));
}
EMSCRIPTEN_KEEPALIVE int attend_trainer_bytes_length() { return static_cast<int>(g_bytes.size()); }

// A character language model: preset one of train/lm_training.h's (rnn-d2l, gru-d2l, lstm-d2l, deep-lstm-d2l,
// birnn-d2l); text: `length` bytes of UTF-8; options: {"seed" (1, as attend lm train), "lr", "epochs", "chars" (the
// first characters after cleaning that train: the preset's 10,000; 0: all), "randomIter"}. Returns a handle.
EMSCRIPTEN_KEEPALIVE int attend_lm_trainer_create(const char* preset_name, const char* text, int length,
                                                  const char* options_json) {
    return guarded([&] {
        const LmPreset& preset = lm_preset(preset_name);
        const nlohmann::json opt = nlohmann::json::parse(options_json && *options_json ? options_json : "{}");
        for (const auto& [key, value] : opt.items())
            if (key != "seed" && key != "lr" && key != "epochs" && key != "chars" && key != "randomIter")
                throw Error("unknown option '" + key + "' (seed, lr, epochs, chars, randomIter)");
        LmTrainOptions o = preset.train;
        o.seed = opt.value("seed", uint64_t(1));
        o.lr = opt.value("lr", o.lr);
        o.epochs = opt.value("epochs", o.epochs);
        o.random_iter = opt.value("randomIter", false);
        if (o.epochs < 1 || o.epochs > 100000) throw Error("epochs must be 1 to 100000, got " + std::to_string(o.epochs));
        const int64_t chars = opt.value("chars", int64_t(preset.max_tokens));
        if (length < 0) throw Error("the text's length is negative");
        auto s = std::make_unique<LmTrainingSession>(preset, std::string(text, size_t(length)), o, chars);
        const int h = g_next_handle++;
        g_lm_sessions[h] = std::move(s);
        return h;
    }, 0);
}

EMSCRIPTEN_KEEPALIVE void attend_lm_trainer_free(int handle) { g_lm_sessions.erase(handle); }

// {"preset", "description", "rnn", "hiddenSize", "layers", "bidirectional", "parameters", "vocab", "trainChars",
// "batchesPerEpoch", "options": {"lr", "epochs", "batch", "steps", "randomIter", "seed"}}
EMSCRIPTEN_KEEPALIVE const char* attend_lm_trainer_info(int handle) {
    return guarded([&] {
        LmTrainingSession& s = lm_session(handle);
        const CharLmConfig& c = s.model().network->config();
        const LmTrainOptions& o = s.options();
        g_text = nlohmann::json{{"preset", s.preset().name},
                                {"description", s.preset().description},
                                {"rnn", rnn_kind_name(c.kind)},
                                {"hiddenSize", c.hidden_size},
                                {"layers", c.num_layers},
                                {"bidirectional", c.bidirectional},
                                {"parameters", s.model().network->parameters().size()},
                                {"vocab", s.model().vocab.id_to_token()},
                                {"trainChars", s.corpus().size()},
                                {"batchesPerEpoch", s.batches_per_epoch()},
                                {"options",
                                 {{"lr", o.lr}, {"epochs", o.epochs}, {"batch", o.batch}, {"steps", o.steps},
                                  {"randomIter", o.random_iter}, {"seed", o.seed}}}}
                     .dump();
        return g_text.c_str();
    }, static_cast<const char*>(nullptr));
}

// Trains `steps` batches; [{"step", "epoch", "batch", "batches", "loss", "gradNorm", "epochDone",
// "epochPerplexity"}, ...] (epochPerplexity on an epoch's last batch: d2l's perplexity of that epoch).
EMSCRIPTEN_KEEPALIVE const char* attend_lm_trainer_step(int handle, int steps) {
    return guarded([&] {
        if (steps < 1 || steps > 100000) throw Error("steps must be 1 to 100000, got " + std::to_string(steps));
        LmTrainingSession& s = lm_session(handle);
        nlohmann::json out = nlohmann::json::array();
        for (int i = 0; i < steps; i++) {
            const LmSessionStep r = s.step();
            nlohmann::json j = {{"step", r.step}, {"epoch", r.epoch}, {"batch", r.batch}, {"batches", r.batches},
                                {"loss", r.result.loss}, {"gradNorm", r.result.grad_norm}, {"epochDone", r.epoch_done}};
            if (r.epoch_done) j["epochPerplexity"] = s.epoch_perplexity();
            out.push_back(std::move(j));
        }
        g_text = out.dump();
        return g_text.c_str();
    }, static_cast<const char*>(nullptr));
}

// d2l's predict_ch8 by the model as it is now: the prefix and `length` greedy characters after it.
EMSCRIPTEN_KEEPALIVE const char* attend_lm_trainer_predict(int handle, const char* prefix, int length) {
    return guarded([&] {
        g_text = lm_session(handle).predict(prefix, length);
        return g_text.c_str();
    }, static_cast<const char*>(nullptr));
}

// The model as a language model file (F32, lm/lm_model_file.h) that `attend lm sample` / `attend lm eval` and
// Attend.loadLanguageModel read, with a card of how it was trained; its bytes by attend_trainer_bytes_length.
EMSCRIPTEN_KEEPALIVE const uint8_t* attend_lm_trainer_export(int handle) {
    return guarded([&] {
        LmTrainingSession& s = lm_session(handle);
        const LmTrainOptions& o = s.options();
        s.model().card = {{"preset", s.preset().name}, {"description", s.preset().description},
                          {"trained_in", "the browser (attend-train.js, WebAssembly)"},
                          {"train_chars", s.corpus().size()}, {"lr", o.lr}, {"batch", o.batch}, {"steps", o.steps},
                          {"iterator", o.random_iter ? "random" : "sequential"}, {"seed", o.seed},
                          {"epochs", s.epochs_done()}, {"batches_trained", s.steps()},
                          {"train_perplexity", s.epoch_perplexity()}};
        g_bytes = save_language_model(s.model(), DType::F32);
        return g_bytes.data();
    }, static_cast<uint8_t*>(nullptr));
}

}  // extern "C"
