// The small Multi30K Transformer run that the trainer tests share: transformer-tiny shrunk to seconds per epoch,
// with dropout on so that a resume must reproduce the dropout masks too.
#pragma once
#include "error.h"
#include "train/trainer.h"

#include <unistd.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace attend_test {

// The message of the attend::Error that f throws; empty when it throws none.
inline std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const attend::Error& e) {
        return e.what();
    }
    return "";
}

// An empty run folder under the system's temp folder, named after the test and this process: test binaries of
// several build trees or checkouts may run at once on one machine.
inline std::string fresh_run_dir(const std::string& name) {
    std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("attend-test-" + std::to_string(::getpid()) + "-" + name);
    std::filesystem::remove_all(dir);
    return dir.string();
}

// The value of `key` in every `event` line of a run's train.jsonl, in order.
inline std::vector<double> logged_values(const std::string& out_dir, const std::string& event, const std::string& key) {
    std::vector<double> values;
    std::ifstream in(std::filesystem::path(out_dir) / "train.jsonl");
    for (std::string line; std::getline(in, line);) {
        const nlohmann::json j = nlohmann::json::parse(line);
        if (j.value("event", "") == event) values.push_back(j[key].get<double>());
    }
    return values;
}

// The loss of every "step" line of a run's train.jsonl, in order.
inline std::vector<double> step_losses(const std::string& out_dir) { return logged_values(out_dir, "step", "loss"); }

inline attend::TrainOptions small_transformer_run(const std::string& out_dir, int log_every) {
    attend::TrainOptions o = attend::train_preset("transformer-tiny");
    o.corpus.bpe_merges = 300;
    o.corpus.max_train_sentences = 400;
    o.model.model_dim = 32;
    o.model.heads = 2;
    o.model.encoder_layers = 1;
    o.model.decoder_layers = 1;
    o.model.ffn_dim = 32;
    o.model.dropout = 0.1f;
    o.max_tokens = 600;
    o.warmup_steps = 4;
    o.lr = 2e-3f;
    o.epochs = 1;
    o.cooldown_epochs = 0;
    o.checkpoint_every = 100;
    o.log_every = log_every;
    o.val_bleu_sentences = 16;
    o.average_last = 0;
    o.out_dir = out_dir;
    return o;
}

}  // namespace attend_test
