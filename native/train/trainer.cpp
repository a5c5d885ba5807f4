#include "train/trainer.h"

#include "train/token_batches.h"
#include "train/communicator.h"
#include "error.h"
#include "text/bleu.h"
#include "text/lang.h"
#include "train/loss.h"
#include "train/optimizer.h"
#include "train/train_batch.h"
#include "train/trainable_model.h"
#include "train/devices.h"
#include "train/gemm.h"
#include "train/native_gemm.h"
#include "train/gemm_precision.h"
#include "train/train_device.h"
#include "translate/transformer_network.h"
#include "translate/translator.h"

#include <malloc.h>
#include <csignal>
#include <cstdlib>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>

namespace attend {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

void require_known_loss(const TrainOptions& o) {
    if (o.keep_model != "best" && o.keep_model != "final")
        throw Error("keep_model must be \"best\" or \"final\", got \"" + o.keep_model + "\"");
    if (o.loss != "masked_softmax_ce" && o.loss != "cross_entropy")
        throw Error("loss '" + o.loss + "' is unknown (expected \"cross_entropy\" or \"masked_softmax_ce\")");
}

// The GPU step (train/train_device.h) is the Transformer's with label-smoothed cross entropy; anything else is refused
// by name before any work.
void require_device_supports(TrainDevice device, const TrainOptions& o) {
    if (device == TrainDevice::Cpu) return;
    std::string unsupported;
    if (!has_gpu_train_step(o.architecture)) unsupported = "architecture '" + o.architecture + "'";
    if (o.loss != "cross_entropy")
        unsupported += (unsupported.empty() ? "" : " and ") + std::string("loss '") + o.loss + "'";
    if (!unsupported.empty())
        throw Error(std::string("attend train --device ") + train_device_name(device) + ": " +
                    (o.preset.empty() ? std::string("this run") : "preset '" + o.preset + "'") + " uses " + unsupported +
                    "; the GPU step trains only Transformer models with the cross_entropy loss (transformer-tiny); "
                    "train this one on the CPU with --device cpu");
}

std::string cpu_name() {
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
    return "unknown CPU";
}

std::string describe_model(const TranslatorModel& tm) {
    char dropout[32];
    std::snprintf(dropout, sizeof dropout, ", dropout %.2f", tm.network->dropout());
    return tm.network->description() + dropout;
}

std::string describe_data(const CorpusOptions& c) {
    if (c.dataset == "files") {
        std::string sets;
        for (const std::string& spec : c.train_sets) sets += (sets.empty() ? "" : " + ") + spec;
        return "files " + c.source_lang + "-" + c.target_lang + ": " + sets + "; SentencePiece " + c.subwords + " " +
               std::to_string(c.vocab_size);
    }
    if (c.dataset == "tatoeba")
        return "tatoeba eng-fra, first " + std::to_string(c.max_train_sentences) + " pairs, word vocabulary (min_freq " +
               std::to_string(c.min_freq) + ")";
    const std::string pairs = describe_training_pairs(c);
    return c.dataset + " " + c.source_lang + "-" + c.target_lang +
           (c.cased ? " train (raw, cased, Moses-tokenized), BPE " : " train (tok), BPE ") + std::to_string(c.bpe_merges) +
           (c.split_digits ? " (digits split)" : "") + (pairs.empty() ? "" : "; training pairs: " + pairs);
}

}  // namespace

namespace {

// The run's voice: whole-line messages, the progress line (rate and ETA) and train.jsonl.
class RunLog {
public:
    explicit RunLog(const TrainHooks& hooks) : hooks_(hooks) {
        run_start_ = std::chrono::steady_clock::now();
        window_start_s_ = elapsed_before_;
    }

    void say(const std::string& line) const {
        if (hooks_.message) hooks_.message(line);
    }

    // Opens train.jsonl and starts the clocks. `resumed`: the position resumed from, after which the log is cut
    // back: what a killed process logged after its last checkpoint is trained and logged again, once is enough.
    void open(const std::string& out_dir, const TrainingState& state, bool resumed) {
        const std::string path = (fs::path(out_dir) / "train.jsonl").string();
        if (resumed)
            if (const int dropped = drop_log_lines_after(path, state))
                say("train.jsonl: dropped " + std::to_string(dropped) + " line(s) logged after step " +
                    std::to_string(state.step) + ", which this run repeats");
        out_.open(path, std::ios::app);
        if (!out_) throw Error("cannot write the training log " + path);
        elapsed_before_ = state.elapsed_seconds;
        run_start_ = std::chrono::steady_clock::now();
        window_start_s_ = elapsed_before_;
    }

    // Training time across resumes.
    double elapsed_seconds() const { return elapsed_before_ + seconds_since(run_start_); }

    // Once the loss of step `step` (batch bi of `batches` in epoch `epoch`, 0-based) is known: the progress line, and
    // every log_every steps a "step" line with the mean loss since the last one (the sums live in the state, so a
    // resume logs the same).
    // `queued_s`: elapsed_seconds() when the step was queued, which times it where its loss arrives late.
    void step(TrainingState& state, const TrainOptions& o, int64_t step, int epoch, int bi, size_t batches,
              double loss, float lr, int64_t target_tokens, double queued_s) {
        window_tokens_ += target_tokens;
        const double tokens_per_s = window_tokens_ / std::max(1e-9, queued_s - window_start_s_);
        if (hooks_.progress) {
            const double done = (epoch + double(bi + 1) / batches) / o.epochs;
            if (done0_ < 0) done0_ = (epoch + double(bi) / batches) / o.epochs;
            const int eta = static_cast<int>(seconds_since(run_start_) / std::max(1e-9, done - done0_) * (1 - done));
            char line[256];
            std::snprintf(line, sizeof line, "epoch %d/%d [%4d/%zu] step %lld loss %.3f lr %.2e %.0f tok/s ETA %dm%ds",
                          epoch + 1, o.epochs, bi + 1, batches, static_cast<long long>(step), loss, lr,
                          tokens_per_s, eta / 60, eta % 60);
            hooks_.progress(line);
        }
        if (o.log_every > 0 && step % o.log_every == 0) {
            write({{"event", "step"}, {"step", step}, {"epoch", epoch + 1},
                   {"loss", state.log_loss_sum / state.log_steps}, {"lr", lr}, {"target_tokens_per_s", tokens_per_s},
                   {"elapsed_s", queued_s}});
            window_start_s_ = queued_s;
            window_tokens_ = 0;
            state.log_loss_sum = 0;
            state.log_steps = 0;
        }
    }

    void write(const json& j) { out_ << j.dump() << '\n' << std::flush; }

private:
    const TrainHooks& hooks_;
    std::ofstream out_;
    double elapsed_before_ = 0;
    std::chrono::steady_clock::time_point run_start_;
    double window_start_s_ = 0;  // elapsed_seconds() at the start of the "step" line's window
    int64_t window_tokens_ = 0;
    double done0_ = -1;  // fraction of the run done when this process started (for the ETA)
};

// What one call trains: the requested options, merged with the run's own when it resumes, and the checkpoint it
// resumes from.
struct ResolvedRun {
    TrainOptions o;
    TrainDevice device = TrainDevice::Cpu;
    std::optional<Checkpoint> resumed;
    std::optional<TranslatorModel> start;  // a new run's starting model (TrainOptions::start_from)
};

// Refuses a device or configuration this run cannot train before any work; loads the newest checkpoint that loads
// when resuming.
// A new run's folder: empty of runs, or emptied by --overwrite. Only the writer (rank 0) looks: the other ranks
// resolve the run after it, when its own files may already be there.
void prepare_new_run_folder(const TrainOptions& o, const RunLog& log) {
    const std::vector<std::string> old = run_files(o.out_dir);
    if (old.empty()) return;
    if (!o.overwrite) {
        const std::vector<std::string> checkpoints = list_checkpoints(o.out_dir);
        const std::string what =
            checkpoints.empty() ? std::to_string(old.size()) + " of its files, such as " +
                                      fs::path(old.front()).filename().string()
                                : std::to_string(checkpoints.size()) + " checkpoint(s), the newest " +
                                      fs::path(checkpoints.back()).filename().string();
        throw Error(o.out_dir + " holds another run (" + what +
                    "); a new run there would mix its checkpoints and log with that one's. Continue that run with "
                    "--resume, train into another --out, or give --overwrite to move its files aside first");
    }
    const std::string aside = move_run_files_aside(o.out_dir);
    log.say("--overwrite: moved the " + std::to_string(old.size()) + " files of the run that was in " + o.out_dir +
            " into " + aside);
}

// `lock`: the writer's (rank 0's) place for the folder's lock, taken once the options pass the checks that need
// no folder; null on the other ranks.
ResolvedRun resolve_run(const TrainOptions& requested, bool resume, const RunLog& log,
                        std::optional<RunFolderLock>* lock) {
    ResolvedRun run{requested, parse_train_device(requested.device), std::nullopt, std::nullopt};
    TrainOptions& o = run.o;
    if (resume && !requested.start_from.empty())
        throw Error("--start-from begins a new run from a model; --resume continues a run's own checkpoint: "
                    "give one of them");
    if (resume && requested.overwrite)
        throw Error("--overwrite sets the folder's run aside to start a new one; --resume continues it: give one "
                    "of them");
    if (!resume) require_device_supports(run.device, o);  // a resume checks the run's own options below
    require_train_device(run.device);                     // a GPU (and a CUDA build) for cuda
    fs::create_directories(o.out_dir);
    if (lock) lock->emplace(o.out_dir);
    if (!resume && lock) prepare_new_run_folder(o, log);
    if (resume) {
        ResumePoint point = load_newest_checkpoint(o.out_dir);
        for (const auto& [path, why] : point.skipped) {
            // Set aside, so that it neither counts among the checkpoints kept (pruning could otherwise delete the one
            // resumed from) nor is tried again; this run writes its step anew.
            const std::string aside = path + ".unreadable";
            std::error_code ec;
            fs::rename(path, aside, ec);
            if (ec) throw Error("--resume: " + path + " does not load (" + why + ") and cannot be set aside: " + ec.message());
            log.say("skipping " + path + " (set aside as " + aside + "), which does not load: " + why);
        }
        log.say("resuming from " + point.path);
        // The run's own options decide everything that shapes the model and the data order.
        TrainOptions saved = train_options_from_json(point.checkpoint.options);
        saved.out_dir = o.out_dir;
        if (o.epochs > 0) saved.epochs = o.epochs;
        if (o.cooldown_epochs >= 0) saved.cooldown_epochs = o.cooldown_epochs;
        saved.max_steps = o.max_steps;
        saved.threads = o.threads;
        saved.device = o.device;  // same checkpoint layout on every device: a run may switch
        saved.precision = o.precision;
        saved.overwrite = false;
        o = saved;
        if (point.checkpoint.model.architecture() != o.architecture)
            throw Error("--resume: " + point.path + " holds a " + point.checkpoint.model.architecture() +
                        " model, the run's options say " + o.architecture);
        require_device_supports(run.device, o);
        if (o.max_steps > 0 && o.max_steps <= point.checkpoint.state.step)
            throw Error("--max-steps " + std::to_string(o.max_steps) + ": " + point.path + " is already at step " +
                        std::to_string(point.checkpoint.state.step) + "; give a larger limit, or none");
        run.resumed = std::move(point.checkpoint);
    } else if (!o.start_from.empty()) {
        try {
            // A model file or a checkpoint (its optimizer state is not wanted).
            run.start = load_translator_model(SafeTensors::from_file(o.start_from), "optimizer.");
        } catch (const Error& e) {
            throw Error(std::string("--start-from: ") + e.what());  // the error names the file
        }
        log.say("starting from " + o.start_from);
        if (run.start->architecture() != o.architecture)
            throw Error("--start-from " + o.start_from + " holds a " + run.start->architecture() +
                        " model, the options say " + o.architecture);
        const std::string model_pair =
            language_code(run.start->source_pipeline) + "-" + language_code(run.start->target_pipeline);
        const std::string options_pair = o.corpus.source_lang + "-" + o.corpus.target_lang;
        if (model_pair != options_pair)
            throw Error("--start-from " + o.start_from + " translates " + model_pair + ", the run is for " +
                        options_pair + " (--source, --target)");
    }
    const GemmPrecision precision = parse_gemm_precision(o.precision);
    if (precision != GemmPrecision::FP32 && run.device == TrainDevice::Cpu)
        throw Error("--precision " + o.precision + " is for --device cuda (tensor cores); the CPU trains in fp32");
    if (o.cooldown_epochs < 0) o.cooldown_epochs = 0;  // -1 (keep the run's own) on a new run: none
    if (o.epochs < 1)
        throw Error("epochs is " + std::to_string(o.epochs) + ", expected >= 1 (0 keeps a resumed run's own)");
    require_known_loss(o);
    training_architecture(o.architecture);  // throws naming the known ones
    if (o.num_steps < 0 || o.num_steps == 1)
        throw Error("num_steps is " + std::to_string(o.num_steps) + ", expected 0 (token batches) or >= 2");
    return run;
}

// What a corpus of files gave, a line a source: the counts a person checks before trusting a run.
void say_corpus_record(const json& record, const RunLog& log) {
    auto sources = [&](const char* part) {
        if (!record.contains(part) || !record[part].is_array()) return;
        for (const json& r : record[part]) {
            std::string skipped;
            for (const auto& [reason, n] : r["skipped"].items())
                if (n.get<std::int64_t>() > 0) skipped += (skipped.empty() ? "" : ", ") + std::to_string(n.get<std::int64_t>()) + " " + reason;
            log.say(std::string(part) + " " + r["spec"].get<std::string>() + ": " + std::to_string(r["lines"].get<std::int64_t>()) +
                    " lines, " + std::to_string(r["pairs"].get<std::int64_t>()) + " pairs" +
                    (r.contains("used") ? ", " + std::to_string(r["used"].get<std::int64_t>()) + " used" : "") +
                    (skipped.empty() ? ", none skipped" : "; skipped: " + skipped));
        }
    };
    sources("train");
    sources("valid");
    sources("test");
    if (record.contains("dropped")) log.say("training pairs dropped: " + record["dropped"].dump());
    if (record.contains("subwords")) log.say("subwords: " + record["subwords"].dump());
}

// The run folder's record of its data: data.json, and the validation pairs as they were read (valid.tsv), so a
// held-out split can be checked and reused.
void write_corpus_record(const std::string& out_dir, const TranslationCorpus& corpus) {
    if (corpus.record.is_null()) return;
    const std::string tmp = out_dir + "/data.json.tmp";
    {
        std::ofstream out(tmp);
        out << corpus.record.dump(2) << "\n";
        if (!out.flush()) throw Error(tmp + ": cannot write the run's data record");
    }
    fs::rename(tmp, out_dir + "/data.json");
    std::ofstream tsv(out_dir + "/valid.tsv.tmp");
    for (size_t i = 0; i < corpus.val_source_text.size(); i++)
        tsv << corpus.val_source_text[i] << '\t' << corpus.val_target_text[i] << '\n';
    if (!tsv.flush()) throw Error(out_dir + "/valid.tsv: cannot write the validation pairs");
    tsv.close();
    fs::rename(out_dir + "/valid.tsv.tmp", out_dir + "/valid.tsv");
}

// A resumed run, or one started from a model, encodes with that model's own tokenizers and vocabularies.
// A new run on a corpus of files learns its subword model once, on rank 0: the library's training is not promised
// to give the same pieces in two processes, and every rank must read the text alike. The others encode with it.
TranslationCorpus prepare_corpus_once(const CorpusOptions& o, Communicator& comm) {
    if (o.dataset != "files" || comm.size() == 1) return prepare_corpus(o);
    TranslationCorpus corpus;
    std::string learned;
    rank0_first(
        comm,
        [&] {
            corpus = prepare_corpus(o);
            learned = json{{"source", corpus.source_pipeline}, {"target", corpus.target_pipeline},
                           {"vocab", corpus.source_vocab}}.dump();
        },
        [] {});
    const std::string from_rank0 = comm.allgather(learned).front();
    if (comm.rank() == 0) return corpus;
    const json j = json::parse(from_rank0);
    TranslationCorpus given;
    given.source_pipeline = j["source"].get<TextPipeline>();
    given.target_pipeline = j["target"].get<TextPipeline>();
    given.source_vocab = given.target_vocab = j["vocab"].get<Vocab>();
    return encode_corpus(o, given.source_pipeline, given.target_pipeline, given.source_vocab, given.target_vocab);
}

TranslationCorpus load_corpus(const ResolvedRun& run, const RunLog& log, Communicator& comm) {
    const auto t0 = std::chrono::steady_clock::now();
    const TranslatorModel* m = run.resumed ? &run.resumed->model : run.start ? &*run.start : nullptr;
    TranslationCorpus corpus =
        m ? encode_corpus(run.o.corpus, m->source_pipeline, m->target_pipeline, m->source_vocab, m->target_vocab)
          : prepare_corpus_once(run.o.corpus, comm);
    if (!corpus.record.is_null()) say_corpus_record(corpus.record, log);
    const std::string origin = describe_training_pairs(run.o.corpus);
    log.say("data: " + std::to_string(corpus.train_source.size()) + " training pairs" +
        (origin.empty() ? "" : " (" + origin + ")") + " (" +
        std::to_string(corpus.dropped_long) + " dropped as too long" +
        (corpus.dropped_empty ? ", " + std::to_string(corpus.dropped_empty) + " with an empty side" : "") + "), " +
        std::to_string(corpus.val_source.size()) +
        " validation pairs, vocabulary " + std::to_string(corpus.source_vocab.size()) + "/" +
        std::to_string(corpus.target_vocab.size()) + ", prepared in " +
        std::to_string(static_cast<int>(seconds_since(t0) * 1000)) + " ms");
    return corpus;
}

// Copies a starting model's parameters into the run's model, which the options built: every tensor must be there
// with the same shape, or the options describe another model.
void copy_start_parameters(ParameterStore& to, const ParameterStore& from, const std::string& path) {
    auto tensor = [](const std::vector<TensorSpec>& specs, size_t i) {  // "name [shape]", or "nothing" past the end
        return i < specs.size() ? specs[i].name + " " + shape_to_string(specs[i].shape) : std::string("nothing");
    };
    const std::vector<TensorSpec>& want = to.specs();
    const std::vector<TensorSpec>& have = from.specs();
    for (size_t i = 0; i < std::max(want.size(), have.size()); i++)
        if (tensor(have, i) != tensor(want, i))
            throw Error("--start-from " + path + ": the model has " + tensor(have, i) +
                        " where the options' model has " + tensor(want, i) +
                        " (give the layers, dimension, heads and ffn size the model was trained with)");
    std::copy_n(from.values(), from.size(), to.values());
}

// The parameters and Adam moments a resumed run continues from, a starting model's parameters, or a fresh
// initialisation; the position to start at.
TrainingState start_parameters(TranslatorModel& tm, Adam& adam, const TrainOptions& o,
                               const std::optional<Checkpoint>& resumed, const std::optional<TranslatorModel>& start) {
    ParameterStore& params = tm.parameters();
    const size_t n = params.size();
    if (start) {
        copy_start_parameters(params, start->parameters(), o.start_from);
        return {};
    }
    if (!resumed) {
        initialise_parameters(tm, o.init, o.seed);
        return {};
    }
    const Checkpoint& c = *resumed;
    if (c.model.parameters().size() != n)
        throw Error("--resume: the checkpoint has " + std::to_string(c.model.parameters().size()) +
                    " parameters, the configuration " + std::to_string(n));
    std::copy_n(c.model.parameters().values(), n, params.values());
    if (c.adam_m.size() != n) throw Error("--resume: the checkpoint holds no optimizer state");
    adam.m() = c.adam_m;
    adam.v() = c.adam_v;
    adam.set_steps(c.state.step);
    return c.state;
}

// The step the run trains with (never null) and the hardware it names.
struct StepDevice {
    std::unique_ptr<TrainStepBackend> backend;
    std::string hardware;
    bool cpu = true;  // the trainer's own CPU step (the hardware is the CPU, the threads count)
};

StepDevice make_step_device(TranslatorModel& tm, TrainableModel& trainable, Adam& adam, const TrainOptions& o,
                            TrainDevice device, const TrainHooks& hooks, Communicator& comm) {
    if (comm.size() > 1 && hooks.step_backend)
        throw Error("data-parallel training (" + comm.describe() + ") cannot use a test step backend");
    if (has_gpu_train_step(o.architecture) && hooks.step_backend) {
        require_device_supports(TrainDevice::Cuda, o);  // what any device step supports
        return {hooks.step_backend(network_as<TransformerNetwork>(*tm.network, "TrainHooks::step_backend").model, o),
                "test step backend", false};
    }
    if (device != TrainDevice::Cpu) {
        require_device_supports(device, o);  // so that it has a GPU step
        // Rank 0, which logs, steps on cuda:0: the description's first line.
        const GemmPrecision precision = parse_gemm_precision(o.precision);
        std::unique_ptr<TrainStepBackend> backend =
            make_gpu_train_step(device, *tm.network, adam.config(), precision, comm);
        const std::string gpus = cuda_availability().description;
        std::string hardware = gpus.substr(0, gpus.find('\n'));
        if (precision == GemmPrecision::TF32) hardware += ", TF32 GEMMs";
        if (precision == GemmPrecision::BF16) hardware += ", BF16 GEMMs (FP32 weights)";
        if (!backend->gradient_sum().empty()) hardware += ", gradients summed over " + backend->gradient_sum();
        return {std::move(backend), hardware, false};
    }
    return {make_cpu_train_step(tm, trainable, adam, o, comm), cpu_name(), true};
}

// Test hook: with ATTEND_TEST_KILL_RANK_AT_STEP=<rank>:<step> in the environment, that rank dies (SIGKILL, no
// clean-up) right after that step, as a rank on a machine that fails would.
void kill_rank_for_test(const Communicator& comm, int64_t step) {
    static const char* hook = std::getenv("ATTEND_TEST_KILL_RANK_AT_STEP");
    if (!hook) return;
    int rank = -1;
    long long at = -1;
    if (std::sscanf(hook, "%d:%lld", &rank, &at) == 2 && rank == comm.rank() && at == step) std::raise(SIGKILL);
}

// What the ranks of a data-parallel run must agree on about the data: sizes, vocabularies and a hash of every id.
std::string describe_corpus(const TranslationCorpus& c) {
    uint64_t h = 1469598103934665603ull;  // FNV-1a
    auto add = [&](uint64_t v) { h = (h ^ v) * 1099511628211ull; };
    for (const auto* side : {&c.train_source, &c.train_target, &c.val_source, &c.val_target})
        for (const std::vector<int>& row : *side) {
            add(row.size());
            for (int id : row) add(uint64_t(uint32_t(id)));
        }
    return std::to_string(c.train_source.size()) + " training pairs, " + std::to_string(c.val_source.size()) +
           " validation pairs, vocabularies " + std::to_string(c.source_vocab.size()) + "/" +
           std::to_string(c.target_vocab.size()) + ", ids hash " + std::to_string(h);
}

// Everything one train_translator call holds once the run is resolved and its corpus loaded.
class Training {
public:
    // The step backend holds the parameters and Adam moments from the start; the host copies (the model's store,
    // adam_.m(), adam_.v()) are refreshed by sync_host() before anything reads them.
    Training(ResolvedRun run, const TranslationCorpus& corpus, const TrainHooks& hooks, RunLog& log,
             Communicator& comm)
        : o_(std::move(run.o)), corpus_(corpus), hooks_(hooks), log_(log), comm_(comm), tm_(build_model(o_, corpus)),
          trainable_(make_trainable(tm_)), layout_(batch_layout(tm_, o_)),
          adam_(tm_.parameters().size(), adam_config(o_)), device_(run.device),
          from_checkpoint_(run.resumed.has_value()) {
        state = start_parameters(tm_, adam_, o_, run.resumed, run.start);
        step_ = make_step_device(tm_, *trainable_, adam_, o_, device_, hooks, comm_);
        step_.backend->upload(tm_.parameters(), adam_.m(), adam_.v(), adam_.steps());
        options_json_ = train_options_to_json(o_);
        // Before the first step: ranks that would train different things stop here, all with the same message.
        if (comm_.size() > 1) {  // (the data hash reads every id: only where there are ranks to compare)
            require_same_on_all_ranks(comm_, "training options or resume point",
                                      options_json_.dump() + " step " + std::to_string(state.step));
            require_same_on_all_ranks(comm_, "data", describe_corpus(corpus_));
            require_same_on_all_ranks(comm_, "attend binary", std::string(__DATE__ " " __TIME__ " ") + __VERSION__);
        }
        // Whatever the step's device: the host's own work (validation, a backend's host side) then runs on the same
        // threads for the same run, which keeps a run bit for bit the same on every backend.
        std::string threads_note;
        const int threads = training_threads(int64_t(tm_.parameters().size()), tokens_per_batch(o_),
                                             omp_get_max_threads());
        if (threads < omp_get_max_threads()) {
            threads_note = " (a step this small runs faster on one)";
            omp_set_num_threads(threads);
        }
        log_.say("model: " + describe_model(tm_) + ", " + std::to_string(tm_.parameters().size()) + " parameters, " +
                 (step_.cpu ? std::to_string(omp_get_max_threads()) + (omp_get_max_threads() == 1 ? " thread" : " threads") + threads_note
                            : "training on " + std::string(train_device_name(device_)) + " (" + step_.hardware + ")") +
                 (comm_.size() > 1 ? " per rank, data-parallel over " + comm_.describe() : ""));
        if (step_.cpu)
            if (const std::string note = gemm_kernel_note(); !note.empty()) log_.say("note: " + note);
        if (writer()) log_.open(o_.out_dir, state, from_checkpoint_);
    }

    const TrainOptions& options() const { return o_; }

    // The epoch's batches (example indices), the same for a given seed and epoch on every run and resume; at an
    // epoch's first batch its loss sums start at zero.
    std::vector<std::vector<size_t>> begin_epoch() {
        if (state.batch_in_epoch == 0) {  // what the seeds accumulate: l.sum() (or the summed CE) and valid tokens
            state.epoch_loss_sum = 0;
            state.epoch_tokens = 0;
        }
        return epoch_batches(o_, corpus_, state.epoch);
    }

    // Trains batch bi of the epoch's batches and records it (state, then loss, progress and log once its loss is
    // taken: at once from a synchronous step backend, one step later from an asynchronous one).
    void train_batch(const std::vector<std::vector<size_t>>& batches, int bi) {
        const TrainBatch b = make_train_batch(corpus_.train_source, corpus_.train_target, batches[bi], layout_);
        const float lr = learning_rate(o_, state.step + 1, state.epoch + double(bi) / batches.size());
        step_.backend->step(comm_.size() > 1 ? shard_rows(b, comm_.rank(), comm_.size(), layout_.pad) : b,
                            step_seed(o_.seed, state.step), o_.label_smoothing, o_.clip_norm, lr);
        host_stale_ = true;
        state.step++;
        kill_rank_for_test(comm_, state.step);
        state.batch_in_epoch = bi + 1;
        state.target_tokens += b.target_tokens;
        state.elapsed_seconds = log_.elapsed_seconds();
        queued_.push_back({state.step, state.epoch, bi, batches.size(), lr, b.target_tokens, state.elapsed_seconds});
        while (queued_.size() > (step_.backend->asynchronous() ? 1u : 0u)) take_loss();
    }

    // Every queued step's loss into the state: before anything that saves or reports the state.
    void take_losses() {
        while (!queued_.empty()) take_loss();
    }

    // The oldest queued step's loss: the stop if it is not finite, the epoch and log sums, the progress line.
    void take_loss() {
        const QueuedStep q = queued_.front();
        queued_.pop_front();
        const StepLoss loss = step_.backend->take_loss();
        if (!std::isfinite(loss.mean))
            throw Error("the training loss became " + std::string(std::isnan(loss.mean) ? "NaN" : "infinite") +
                        " at step " + std::to_string(q.step) + " (epoch " + std::to_string(q.epoch + 1) + ", " +
                        train_device_name(device_) + "); stopping. The last checkpoint in " + o_.out_dir +
                        " is intact: lower --lr or raise --warmup");
        state.epoch_loss_sum += loss.sum;
        state.epoch_tokens += loss.tokens;
        state.log_loss_sum += loss.mean;
        state.log_steps++;
        result.last_loss = loss.mean;
        if (writer())
            log_.step(state, o_, q.step, q.epoch, q.bi, q.batches, loss.mean, q.lr, q.target_tokens, q.queued_s);
    }

    // After a step: a checkpoint every checkpoint_every steps, and one before stopping (Ctrl-C, --max-steps).
    // True when the run stops here. `epoch_done`: the step was the epoch's last batch; a run that stops there ends
    // the epoch first (its validation, "epoch" line and checkpoint at the next epoch's start), as an uninterrupted
    // run does, so that the epochs it reports trained are all it trained.
    bool checkpoint_or_stop(bool epoch_done) {
        double stops = hooks_.stop && hooks_.stop->load() ? 1.0 : 0.0;
        comm_.allreduce_sum(&stops, 1);  // a signal reaches the ranks at different steps: stop together
        const bool stop = stops > 0;
        const bool last = o_.max_steps > 0 && state.step >= o_.max_steps;
        if ((stop || last) && epoch_done) {
            end_epoch();
        } else if (stop || last || (o_.checkpoint_every > 0 && state.step % o_.checkpoint_every == 0)) {
            take_losses();  // on every rank: a share's loss is summed over the ranks
            save();
        }
        if (!stop && !last) return false;
        result.interrupted = stop;
        log_.say(std::string(stop ? "interrupted" : "reached --max-steps") + " at step " + std::to_string(state.step) +
                 "; checkpoint " + checkpoint_path(o_.out_dir, state.step));
        return true;
    }

    // Validation (every validate_every epochs and the last), the best model, and a checkpoint whose position is the
    // next epoch's start.
    void end_epoch() {
        take_losses();
        result.epoch_loss_d2l = state.epoch_tokens ? state.epoch_loss_sum / state.epoch_tokens : 0.0;
        const int epoch = state.epoch + 1;
        json line{{"event", "epoch"}, {"epoch", epoch}, {"step", state.step}, {"train_loss", result.epoch_loss_d2l}};
        if (!writer()) {
            // Rank 0 validates and writes; the others wait for it at the next step's first collective.
        } else if (epoch % std::max(1, o_.validate_every) == 0 || epoch == o_.epochs) {
            sync_host();  // validation and the best model read the host parameters
            result.val_loss = validation_loss(*trainable_, tm_, corpus_, layout_);
            result.val_bleu = validation_bleu(tm_, corpus_, o_.val_bleu_sentences);
            result.validated = true;
            line["val_loss"] = result.val_loss;
            line["val_bleu"] = result.val_bleu;
            char text[240];
            std::snprintf(text, sizeof text, "epoch %d: train loss %.3f, val loss %.3f, val BLEU %.2f (greedy), %lld steps, %.0f s",
                          epoch, result.epoch_loss_d2l, result.val_loss, result.val_bleu,
                          static_cast<long long>(state.step), state.elapsed_seconds);
            line["elapsed_s"] = state.elapsed_seconds;
            log_.write(line);
            log_.say(text);
            if (o_.keep_model == "best" && result.val_bleu > state.best_val_bleu) {
                state.best_val_bleu = result.val_bleu;
                tm_.card = card(result.val_bleu, epoch);
                result.best_model = (fs::path(o_.out_dir) / "best.safetensors").string();
                write_file_atomically(result.best_model, save_translator_model(tm_, DType::F32));
            }
        } else {
            line["elapsed_s"] = state.elapsed_seconds;
            log_.write(line);
        }
        state.epoch = epoch;
        state.batch_in_epoch = 0;
        save();
    }

    // At the end, with average_last > 1: the mean of the last checkpoints, exported beside them.
    void average_last() {
        if (o_.average_last <= 1 || !writer()) return;
        std::vector<std::string> all = list_checkpoints(o_.out_dir);
        std::vector<std::string> last(all.end() - std::min<size_t>(all.size(), o_.average_last), all.end());
        TranslatorModel avg = average_checkpoints(last);
        avg.card = card(state.best_val_bleu, state.epoch);
        avg.card["averaged_checkpoints"] = last.size();
        write_file_atomically((fs::path(o_.out_dir) / "averaged.safetensors").string(), save_translator_model(avg, DType::F32));
        log_.say("averaged the last " + std::to_string(last.size()) + " checkpoints into " + o_.out_dir +
                 "/averaged.safetensors");
    }

    TrainResult finish() {
        take_losses();
        if (o_.keep_model == "final" && !result.interrupted && writer()) {
            sync_host();
            tm_.card = card(result.val_bleu, state.epoch);
            result.final_model = (fs::path(o_.out_dir) / "final.safetensors").string();
            write_file_atomically(result.final_model, save_translator_model(tm_, DType::F32));
            log_.say("final model: " + result.final_model);
        }
        result.state = state;
        return result;
    }

    TrainingState state;
    TrainResult result;

private:
    bool writer() const { return comm_.rank() == 0; }

    void sync_host() {
        if (!host_stale_) return;
        step_.backend->download(tm_.parameters(), adam_.m(), adam_.v());
        adam_.set_steps(state.step);
        host_stale_ = false;
    }

    void save() {
        if (!writer()) return;
        sync_host();
        // The card travels with the weights into anything exported from this checkpoint: describe these weights.
        tm_.card = card(result.val_bleu, state.epoch);
        save_checkpoint(checkpoint_path(o_.out_dir, state.step), tm_, adam_.m(), adam_.v(), state, options_json_);
        prune_checkpoints(o_.out_dir, o_.keep_checkpoints);
    }

    json card(double val_bleu, int epochs_done) const {
        json c{{"data", describe_data(o_.corpus)}, {"preset", o_.preset}, {"architecture", o_.architecture},
                    {"steps", state.step}, {"epochs", epochs_done}, {"training_seconds", state.elapsed_seconds},
                    {"hardware", step_.hardware}, {"threads", omp_get_max_threads()}, {"val_bleu_greedy", val_bleu}};
        if (!corpus_.record.is_null()) c["corpus"] = corpus_.record;
        return c;
    }

    TrainOptions o_;
    const TranslationCorpus& corpus_;
    const TrainHooks& hooks_;
    RunLog& log_;
    Communicator& comm_;
    TranslatorModel tm_;
    std::unique_ptr<TrainableModel> trainable_;
    BatchLayout layout_;
    Adam adam_;
    const TrainDevice device_;
    const bool from_checkpoint_;
    StepDevice step_;
    bool host_stale_ = false;  // the step backend has stepped since the last download
    // Steps whose loss the backend has not handed over yet, and what recording the loss needs of them.
    struct QueuedStep {
        int64_t step = 0;
        int epoch = 0, bi = 0;  // 0-based
        size_t batches = 0;
        float lr = 0;
        int64_t target_tokens = 0;
        double queued_s = 0;  // the run's elapsed seconds when it was queued
    };
    std::deque<QueuedStep> queued_;
    json options_json_;
};

}  // namespace

TrainResult train_translator(const TrainOptions& requested, bool resume, const TrainHooks& given_hooks) {
    use_native_gemm();
    Communicator& comm = given_hooks.comm ? *given_hooks.comm : world();
    TrainHooks hooks = given_hooks;
    if (comm.rank() != 0) hooks.message = hooks.progress = nullptr;  // one voice: rank 0's
    RunLog log(hooks);
    // Rank 0 first: it may set aside unreadable checkpoints, which the others must then not see. Rank 0 alone
    // writes the folder, so it alone holds the lock: ranks of one job share the folder (or each have a copy of it).
    ResolvedRun run;
    std::optional<RunFolderLock> lock;
    rank0_first(
        comm, [&] { run = resolve_run(requested, resume, log, &lock); },
        [&] { run = resolve_run(requested, resume, log, nullptr); });
    // Every step frees and allocates the same large buffers; keep them in the heap instead of returning them to
    // the system, or each step pays for page faults on hundreds of megabytes.
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, -1);
    // The thread count chosen for this run (--threads, or one for a small step) is the run's: the caller's comes back.
    struct RestoreThreads {
        int threads = omp_get_max_threads();
        ~RestoreThreads() { omp_set_num_threads(threads); }
    } restore_threads;
    if (run.o.threads > 0) omp_set_num_threads(run.o.threads);
    const TranslationCorpus corpus = load_corpus(run, log, comm);
    if (comm.size() > 1 && corpus.source_pipeline.type == TextPipelineType::sentencepiece)
        require_same_on_all_ranks(comm, "the subword model", json(corpus.source_pipeline).dump());
    if (comm.rank() == 0) write_corpus_record(run.o.out_dir, corpus);
    Training t(std::move(run), corpus, hooks, log, comm);
    while (t.state.epoch < t.options().epochs) {
        const std::vector<std::vector<size_t>> batches = t.begin_epoch();
        for (int bi = t.state.batch_in_epoch; bi < static_cast<int>(batches.size()); bi++) {
            t.train_batch(batches, bi);
            if (t.checkpoint_or_stop(bi + 1 == static_cast<int>(batches.size()))) return t.finish();
        }
        t.end_epoch();
    }
    t.average_last();
    return t.finish();
}

}  // namespace attend
