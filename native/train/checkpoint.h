// Training checkpoints: a translator model file (so any checkpoint exports or translates as it is) plus the
// Adam moments under "optimizer.*" and the training position in metadata "attend.training_state". Written to
// a temporary file and renamed, so an interrupted write never leaves a broken checkpoint behind.
#pragma once
#include "translate/model_file.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace attend {

struct TrainingState {
    int64_t step = 0;            // optimizer steps taken
    int epoch = 0;               // current epoch (0-based)
    int batch_in_epoch = 0;      // batches of `epoch` already trained on
    double elapsed_seconds = 0;  // training time so far, across resumes
    int64_t target_tokens = 0;   // target tokens trained on so far
    double best_val_bleu = -1;
};
void to_json(nlohmann::json& j, const TrainingState& s);
void from_json(const nlohmann::json& j, TrainingState& s);

struct Checkpoint {
    TranslatorModel model;
    std::vector<float> adam_m, adam_v;  // empty when the file holds none (an exported model)
    TrainingState state;
    nlohmann::json options;            // the training options the run was started with
};

void save_checkpoint(const std::string& path, const TranslatorModel& model, const std::vector<float>& adam_m,
                     const std::vector<float>& adam_v, const TrainingState& state, const nlohmann::json& options);
Checkpoint load_checkpoint(const std::string& path);

// checkpoint-<step>.safetensors files of a run folder, oldest first.
std::vector<std::string> list_checkpoints(const std::string& dir);
std::string checkpoint_path(const std::string& dir, int64_t step);
// Deletes all but the newest `keep` checkpoints.
void prune_checkpoints(const std::string& dir, int keep);

// Element-wise mean of the parameters of several checkpoints of one run (same config); tokenizer and vocabularies
// come from the first.
TranslatorModel average_checkpoints(const std::vector<std::string>& paths);

// Writes bytes to path atomically (temporary file + rename).
void write_file_atomically(const std::string& path, const std::vector<uint8_t>& bytes);

}  // namespace attend
