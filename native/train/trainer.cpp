#include "train/trainer.h"

#include "data/token_batches.h"
#include "decode/greedy_search.h"
#include "error.h"
#include "model/dropout.h"
#include "text/bleu.h"
#include "text/bpe.h"
#include "train/loss.h"
#include "train/optimizer.h"
#include "train/transformer_backward.h"
#include "train/xavier_init.h"
#include "translate/transformer_search_model.h"

#include <malloc.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace attend {

namespace fs = std::filesystem;
using json = nlohmann::json;

json train_options_to_json(const TrainOptions& o) {
    return {{"preset", o.preset}, {"corpus", o.corpus}, {"model", transformer_config_to_json(o.model)},
            {"lr", o.lr}, {"warmup_steps", o.warmup_steps}, {"beta1", o.beta1}, {"beta2", o.beta2},
            {"adam_eps", o.adam_eps}, {"weight_decay", o.weight_decay}, {"label_smoothing", o.label_smoothing},
            {"clip_norm", o.clip_norm}, {"max_tokens", o.max_tokens}, {"epochs", o.epochs},
            {"max_steps", o.max_steps}, {"seed", o.seed}, {"checkpoint_every", o.checkpoint_every},
            {"keep_checkpoints", o.keep_checkpoints}, {"log_every", o.log_every},
            {"val_bleu_sentences", o.val_bleu_sentences}, {"average_last", o.average_last}};
}

TrainOptions train_options_from_json(const json& j) {
    TrainOptions o;
    o.preset = j.value("preset", o.preset);
    if (j.contains("corpus")) o.corpus = j["corpus"].get<CorpusOptions>();
    if (j.contains("model")) o.model = transformer_config_from_json(j["model"]);
    o.lr = j.value("lr", o.lr);
    o.warmup_steps = j.value("warmup_steps", o.warmup_steps);
    o.beta1 = j.value("beta1", o.beta1);
    o.beta2 = j.value("beta2", o.beta2);
    o.adam_eps = j.value("adam_eps", o.adam_eps);
    o.weight_decay = j.value("weight_decay", o.weight_decay);
    o.label_smoothing = j.value("label_smoothing", o.label_smoothing);
    o.clip_norm = j.value("clip_norm", o.clip_norm);
    o.max_tokens = j.value("max_tokens", o.max_tokens);
    o.epochs = j.value("epochs", o.epochs);
    o.max_steps = j.value("max_steps", o.max_steps);
    o.seed = j.value("seed", o.seed);
    o.checkpoint_every = j.value("checkpoint_every", o.checkpoint_every);
    o.keep_checkpoints = j.value("keep_checkpoints", o.keep_checkpoints);
    o.log_every = j.value("log_every", o.log_every);
    o.val_bleu_sentences = j.value("val_bleu_sentences", o.val_bleu_sentences);
    o.average_last = j.value("average_last", o.average_last);
    return o;
}

std::vector<std::string> train_preset_names() { return {"transformer-tiny"}; }

TrainOptions train_preset(const std::string& name) {
    TrainOptions o;
    o.preset = name;
    if (name == "transformer-tiny") {
        o.corpus.bpe_merges = 10000;
        o.corpus.joint_vocab = true;
        o.model.model_dim = 128;
        o.model.heads = 4;
        o.model.encoder_layers = 4;
        o.model.decoder_layers = 4;
        o.model.ffn_dim = 256;
        o.model.dropout = 0.3f;
        o.model.tie_embeddings = true;
        o.model.max_len = 256;
        o.label_smoothing = 0.1f;
        o.lr = 5e-3f;
        o.warmup_steps = 2000;
        o.beta1 = 0.9f;
        o.beta2 = 0.98f;
        o.max_tokens = 4096;
        o.epochs = 30;
        o.average_last = 10;
        o.out_dir = "runs/transformer-tiny";
        return o;
    }
    std::string known;
    for (const std::string& n : train_preset_names()) known += (known.empty() ? "" : ", ") + n;
    throw Error("unknown preset '" + name + "' (known: " + known + ")");
}

namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

float learning_rate(const TrainOptions& o, int64_t step) {  // step is 1-based
    const double s = static_cast<double>(step), w = std::max(1, o.warmup_steps);
    return static_cast<float>(o.lr * std::min(s / w, std::sqrt(w / s)));
}

uint64_t step_seed(uint64_t seed, int64_t step) {
    uint64_t h = seed * 0x9E3779B97F4A7C15ull ^ (static_cast<uint64_t>(step) + 0x632BE59BD9B4E019ull);
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 29);
}

// One padded batch: sources + <eos>; decoder input <bos> + target; labels target + <eos> (padding: pad_id).
struct Batch {
    int B = 0, S = 0, T = 0;
    std::vector<int> src, tgt_in, tgt_out, src_valid, tgt_valid;
    int64_t target_tokens = 0;
};

Batch make_batch(const std::vector<std::vector<int>>& sources, const std::vector<std::vector<int>>& targets,
                 const std::vector<size_t>& examples, int pad, int bos, int eos) {
    Batch b;
    b.B = static_cast<int>(examples.size());
    for (size_t e : examples) {
        b.S = std::max(b.S, static_cast<int>(sources[e].size()) + 1);
        b.T = std::max(b.T, static_cast<int>(targets[e].size()) + 1);
    }
    b.src.assign(size_t(b.B) * b.S, pad);
    b.tgt_in.assign(size_t(b.B) * b.T, pad);
    b.tgt_out.assign(size_t(b.B) * b.T, pad);
    for (int r = 0; r < b.B; r++) {
        const std::vector<int>& s = sources[examples[r]];
        const std::vector<int>& t = targets[examples[r]];
        std::copy(s.begin(), s.end(), b.src.begin() + size_t(r) * b.S);
        b.src[size_t(r) * b.S + s.size()] = eos;
        b.tgt_in[size_t(r) * b.T] = bos;
        std::copy(t.begin(), t.end(), b.tgt_in.begin() + size_t(r) * b.T + 1);
        std::copy(t.begin(), t.end(), b.tgt_out.begin() + size_t(r) * b.T);
        b.tgt_out[size_t(r) * b.T + t.size()] = eos;
        b.src_valid.push_back(static_cast<int>(s.size()) + 1);
        b.tgt_valid.push_back(static_cast<int>(t.size()) + 1);
        b.target_tokens += static_cast<int64_t>(t.size()) + 1;
    }
    return b;
}

// Mean cross entropy per target token (no label smoothing) over the validation set, teacher forced.
double validation_loss(const Transformer& model, const TranslationCorpus& corpus, int pad, int bos, int eos) {
    const int V = model.config.tgt_vocab;
    double total = 0;
    int64_t count = 0;
    std::vector<float> probs;
    const size_t n = corpus.val_source.size(), rows = 64;
    for (size_t start = 0; start < n; start += rows) {
        std::vector<size_t> examples;
        for (size_t i = start; i < std::min(n, start + rows); i++) examples.push_back(i);
        Batch b = make_batch(corpus.val_source, corpus.val_target, examples, pad, bos, eos);
        if (b.S > model.config.max_len || b.T > model.config.max_len) continue;
        TransformerActivations acts;
        plan_transformer(acts, model.config, b.B, b.S, b.T);
        transformer_forward(acts, model, b.src.data(), b.src_valid.data(), b.tgt_in.data(), b.tgt_valid.data());
        probs.resize(size_t(b.B) * b.T * V);
        const int N = b.B * b.T;
        total += cross_entropy_forward(nullptr, probs.data(), acts.logits, b.tgt_out.data(), pad, 0.0f, N, V);
        count += cross_entropy_count(b.tgt_out.data(), pad, N);
    }
    return count ? total / count : 0.0;
}

std::string cpu_name() {
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
    return "unknown CPU";
}

void initialise(Transformer& model, uint64_t seed) {
    xavier_init_weights(model.params, seed);
    // Embeddings ~ N(0, C^-1/2): multiplied by sqrt(C) in the forward, they enter the model with unit variance.
    const float stddev = 1.0f / std::sqrt(static_cast<float>(model.config.model_dim));
    for (const TensorSpec& spec : model.params.specs()) {
        if (spec.name.find("embedding") == std::string::npos) continue;
        float* w = model.params.value_at(spec.offset);
        for (size_t i = 0; i < spec.size; i++) w[i] = normal_at(seed ^ 0xE3B0C442ull, spec.offset + i) * stddev;
    }
}

class JsonLog {
public:
    explicit JsonLog(const std::string& path) : out_(path, std::ios::app) {
        if (!out_) throw Error("cannot write the training log " + path);
    }
    void write(const json& j) { out_ << j.dump() << '\n' << std::flush; }

private:
    std::ofstream out_;
};

}  // namespace

double validation_bleu(const Transformer& model, const TranslationCorpus& corpus, int bos_id, int eos_id, int sentences) {
    const size_t n = sentences > 0 ? std::min<size_t>(sentences, corpus.val_source.size()) : corpus.val_source.size();
    std::vector<std::string> hyps(n), refs(corpus.val_references.begin(), corpus.val_references.begin() + n);
    SearchOptions opt;
    opt.bos_id = bos_id;
    opt.eos_id = eos_id;
#pragma omp parallel for schedule(dynamic, 8)
    for (long i = 0; i < static_cast<long>(n); i++) {
        std::vector<int> src = corpus.val_source[i];
        src.push_back(eos_id);
        SearchOptions o = opt;
        o.max_length = std::min(model.config.max_len, static_cast<int>(src.size()) * 2 + 10);
        if (static_cast<int>(src.size()) > model.config.max_len) continue;
        TransformerSearchModel search(model, src.data(), static_cast<int>(src.size()), o.max_length);
        Hypothesis h = greedy_search(search, o);
        if (h.finished) h.tokens.pop_back();
        std::vector<std::string> pieces = corpus.target_vocab.tokens(h.tokens);
        std::string line;
        for (const std::string& w : undo_bpe(pieces)) line += (line.empty() ? "" : " ") + w;
        hyps[i] = line;
    }
    return corpus_bleu(hyps, refs).score;
}

TrainResult train_translator(const TrainOptions& requested, bool resume, const TrainHooks& hooks) {
    auto say = [&](const std::string& line) { if (hooks.message) hooks.message(line); };
    TrainOptions o = requested;
    // Every step frees and allocates the same large buffers; keep them in the heap instead of returning them to
    // the system, or each step pays for page faults on hundreds of megabytes.
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, -1);
    if (o.threads > 0) omp_set_num_threads(o.threads);
    fs::create_directories(o.out_dir);

    Checkpoint ckpt;
    bool from_checkpoint = false;
    if (resume) {
        std::vector<std::string> found = list_checkpoints(o.out_dir);
        if (found.empty()) throw Error("--resume: no checkpoint-*.safetensors in " + o.out_dir);
        say("resuming from " + found.back());
        ckpt = load_checkpoint(found.back());
        from_checkpoint = true;
        // The run's own options decide everything that shapes the model and the data order.
        TrainOptions saved = train_options_from_json(ckpt.options);
        saved.out_dir = o.out_dir;
        saved.epochs = o.epochs;
        saved.max_steps = o.max_steps;
        saved.threads = o.threads;
        o = saved;
    }

    auto t0 = std::chrono::steady_clock::now();
    TranslationCorpus corpus = from_checkpoint
        ? encode_corpus(o.corpus, ckpt.model.source_pipeline, ckpt.model.target_pipeline, ckpt.model.source_vocab,
                        ckpt.model.target_vocab)
        : prepare_corpus(o.corpus);
    say("data: " + std::to_string(corpus.train_source.size()) + " training pairs (" +
        std::to_string(corpus.dropped_long) + " dropped as too long), " + std::to_string(corpus.val_source.size()) +
        " validation pairs, vocabulary " + std::to_string(corpus.source_vocab.size()) + "/" +
        std::to_string(corpus.target_vocab.size()) + ", prepared in " +
        std::to_string(static_cast<int>(seconds_since(t0) * 1000)) + " ms");

    TranslatorModel tm;
    tm.source_pipeline = corpus.source_pipeline;
    tm.target_pipeline = corpus.target_pipeline;
    tm.source_vocab = corpus.source_vocab;
    tm.target_vocab = corpus.target_vocab;
    tm.pad_id = corpus.target_vocab["<pad>"];
    tm.bos_id = corpus.target_vocab["<bos>"];
    tm.eos_id = corpus.target_vocab["<eos>"];
    TransformerConfig config = o.model;
    config.src_vocab = static_cast<int>(corpus.source_vocab.size());
    config.tgt_vocab = static_cast<int>(corpus.target_vocab.size());
    config.pad_id = tm.pad_id;
    if (config.tie_embeddings && config.src_vocab != config.tgt_vocab)
        throw Error("tied embeddings need one joint vocabulary (corpus.joint_vocab)");
    o.model = config;
    tm.transformer = std::make_unique<Transformer>(config, /*with_grads=*/true);
    Transformer& model = *tm.transformer;
    ParameterStore& params = model.params;
    const size_t n_params = params.size();

    AdamConfig adam_config;
    adam_config.lr = o.lr;
    adam_config.beta1 = o.beta1;
    adam_config.beta2 = o.beta2;
    adam_config.eps = o.adam_eps;
    adam_config.weight_decay = o.weight_decay;
    Adam adam(n_params, adam_config);
    TrainingState state;
    if (from_checkpoint) {
        if (ckpt.model.transformer->params.size() != n_params)
            throw Error("--resume: the checkpoint has " + std::to_string(ckpt.model.transformer->params.size()) +
                        " parameters, the configuration " + std::to_string(n_params));
        std::copy_n(ckpt.model.transformer->params.values(), n_params, params.values());
        if (ckpt.adam_m.size() != n_params) throw Error("--resume: the checkpoint holds no optimizer state");
        adam.m() = ckpt.adam_m;
        adam.v() = ckpt.adam_v;
        adam.set_steps(ckpt.state.step);
        state = ckpt.state;
    } else {
        initialise(model, o.seed);
    }
    const json options_json = train_options_to_json(o);
    say("model: Transformer " + std::to_string(config.encoder_layers) + "+" + std::to_string(config.decoder_layers) +
        " layers, C " + std::to_string(config.model_dim) + ", " + std::to_string(config.heads) + " heads, ffn " +
        std::to_string(config.ffn_dim) + ", " + std::to_string(n_params) + " parameters, " +
        std::to_string(omp_get_max_threads()) + " threads");

    std::vector<int> src_lens, tgt_lens;
    for (size_t i = 0; i < corpus.train_source.size(); i++) {
        src_lens.push_back(static_cast<int>(corpus.train_source[i].size()) + 1);
        tgt_lens.push_back(static_cast<int>(corpus.train_target[i].size()) + 1);
    }
    BatchingOptions batching;
    batching.max_tokens = static_cast<size_t>(o.max_tokens);
    batching.seed = o.seed;

    auto card = [&](double val_bleu, int epochs_done) {
        return json{{"data", o.corpus.dataset + " " + o.corpus.source_lang + "-" + o.corpus.target_lang +
                                 " train (tok), BPE " + std::to_string(o.corpus.bpe_merges)},
                    {"preset", o.preset}, {"steps", state.step}, {"epochs", epochs_done},
                    {"training_seconds", state.elapsed_seconds}, {"hardware", cpu_name()},
                    {"threads", omp_get_max_threads()}, {"val_bleu_greedy", val_bleu}};
    };
    auto save = [&]() {
        save_checkpoint(checkpoint_path(o.out_dir, state.step), tm, adam.m(), adam.v(), state, options_json);
        prune_checkpoints(o.out_dir, o.keep_checkpoints);
    };

    JsonLog log((fs::path(o.out_dir) / "train.jsonl").string());
    TrainResult result;
    std::vector<float> probs, dlogits;
    TransformerActivations acts;
    auto run_start = std::chrono::steady_clock::now();
    const double elapsed_before = state.elapsed_seconds;
    auto window_start = std::chrono::steady_clock::now();
    int64_t window_tokens = 0;
    double window_loss = 0;
    int window_steps = 0;
    const int V = config.tgt_vocab;
    double done0 = -1;  // fraction of the run done when this process started (for the ETA)

    for (; state.epoch < o.epochs; state.epoch++, state.batch_in_epoch = 0) {
        std::vector<TokenBatch> batches = make_token_batches(src_lens, tgt_lens, batching, static_cast<uint64_t>(state.epoch));
        for (int bi = state.batch_in_epoch; bi < static_cast<int>(batches.size()); bi++) {
            Batch b = make_batch(corpus.train_source, corpus.train_target, batches[bi].examples, tm.pad_id, tm.bos_id, tm.eos_id);
            plan_transformer(acts, config, b.B, b.S, b.T);  // reuses the arena's memory from the last step
            DropoutStream dropout(config.dropout, step_seed(o.seed, state.step));
            transformer_forward(acts, model, b.src.data(), b.src_valid.data(), b.tgt_in.data(), b.tgt_valid.data(), &dropout);
            const int N = b.B * b.T;
            probs.resize(size_t(N) * V);
            const double loss_sum = cross_entropy_forward(nullptr, probs.data(), acts.logits, b.tgt_out.data(), tm.pad_id,
                                                          o.label_smoothing, N, V);
            const int count = cross_entropy_count(b.tgt_out.data(), tm.pad_id, N);
            const double loss = loss_sum / std::max(1, count);
            if (!std::isfinite(loss))
                throw Error("the training loss became " + std::string(std::isnan(loss) ? "NaN" : "infinite") + " at step " +
                            std::to_string(state.step + 1) + " (epoch " + std::to_string(state.epoch + 1) +
                            "); stopping. The last checkpoint in " + o.out_dir + " is intact: lower --lr or raise --warmup");
            params.zero_grad();
            dlogits.assign(size_t(N) * V, 0.0f);
            cross_entropy_backward(dlogits.data(), nullptr, 1.0f / std::max(1, count), probs.data(), b.tgt_out.data(),
                                   tm.pad_id, o.label_smoothing, N, V);
            transformer_backward(model, acts, dlogits.data(), b.src.data(), b.tgt_in.data());
            if (o.clip_norm > 0) clip_grad_norm(params.grads(), n_params, o.clip_norm);
            const float lr = learning_rate(o, state.step + 1);
            adam.step(params.values(), params.grads(), lr);

            state.step++;
            state.batch_in_epoch = bi + 1;
            state.target_tokens += b.target_tokens;
            state.elapsed_seconds = elapsed_before + seconds_since(run_start);
            result.last_loss = loss;
            window_tokens += b.target_tokens;
            window_loss += loss;
            window_steps++;

            const double window_s = seconds_since(window_start);
            const double tokens_per_s = window_tokens / std::max(1e-9, window_s);
            if (hooks.progress) {
                const double done = (state.epoch + double(bi + 1) / batches.size()) / o.epochs;
                if (done0 < 0) done0 = (state.epoch + double(bi) / batches.size()) / o.epochs;
                const double eta = seconds_since(run_start) / std::max(1e-9, done - done0) * (1 - done);
                char line[256];
                std::snprintf(line, sizeof line, "epoch %d/%d [%4d/%zu] step %lld loss %.3f lr %.2e %.0f tok/s ETA %s",
                              state.epoch + 1, o.epochs, bi + 1, batches.size(), static_cast<long long>(state.step), loss,
                              lr, tokens_per_s,
                              (std::to_string(static_cast<int>(eta) / 60) + "m" + std::to_string(static_cast<int>(eta) % 60) + "s").c_str());
                hooks.progress(line);
            }
            if (o.log_every > 0 && state.step % o.log_every == 0) {
                log.write({{"event", "step"}, {"step", state.step}, {"epoch", state.epoch + 1}, {"loss", window_loss / window_steps},
                           {"lr", lr}, {"target_tokens_per_s", tokens_per_s}, {"elapsed_s", state.elapsed_seconds}});
                window_start = std::chrono::steady_clock::now();
                window_tokens = 0;
                window_loss = 0;
                window_steps = 0;
            }
            const bool stop = hooks.stop && hooks.stop->load();
            const bool last = o.max_steps > 0 && state.step >= o.max_steps;
            if (stop || last || (o.checkpoint_every > 0 && state.step % o.checkpoint_every == 0)) save();
            if (stop || last) {
                result.interrupted = stop;
                say(std::string(stop ? "interrupted" : "reached --max-steps") + " at step " + std::to_string(state.step) +
                    "; checkpoint " + checkpoint_path(o.out_dir, state.step));
                result.state = state;
                return result;
            }
        }
        // End of epoch: validation, best model, checkpoint (the saved position is the next epoch's start).
        const double val_loss = validation_loss(model, corpus, tm.pad_id, tm.bos_id, tm.eos_id);
        const double val_bleu = validation_bleu(model, corpus, tm.bos_id, tm.eos_id, o.val_bleu_sentences);
        result.val_loss = val_loss;
        result.val_bleu = val_bleu;
        log.write({{"event", "epoch"}, {"epoch", state.epoch + 1}, {"step", state.step}, {"val_loss", val_loss},
                   {"val_bleu", val_bleu}, {"elapsed_s", state.elapsed_seconds}});
        char line[200];
        std::snprintf(line, sizeof line, "epoch %d: val loss %.3f, val BLEU %.2f (greedy), %lld steps, %.0f s",
                      state.epoch + 1, val_loss, val_bleu, static_cast<long long>(state.step), state.elapsed_seconds);
        say(line);
        if (val_bleu > state.best_val_bleu) {
            state.best_val_bleu = val_bleu;
            tm.card = card(val_bleu, state.epoch + 1);
            result.best_model = (fs::path(o.out_dir) / "best.safetensors").string();
            write_file_atomically(result.best_model, save_translator_model(tm, DType::F32));
        }
        state.epoch++;
        state.batch_in_epoch = 0;
        save();
        state.epoch--;  // the loop's increment
    }
    if (o.average_last > 1) {
        std::vector<std::string> all = list_checkpoints(o.out_dir);
        std::vector<std::string> last(all.end() - std::min<size_t>(all.size(), o.average_last), all.end());
        TranslatorModel avg = average_checkpoints(last);
        avg.card = card(state.best_val_bleu, state.epoch);
        avg.card["averaged_checkpoints"] = last.size();
        write_file_atomically((fs::path(o.out_dir) / "averaged.safetensors").string(), save_translator_model(avg, DType::F32));
        say("averaged the last " + std::to_string(last.size()) + " checkpoints into " + o.out_dir + "/averaged.safetensors");
    }
    result.state = state;
    return result;
}

}  // namespace attend
