// Training checkpoints: a translator model file (so any checkpoint exports or translates as it is) plus the
// Adam moments under "optimizer.*" and the training position in metadata "attend.training_state". Written to
// a temporary file, synced and renamed, so neither a killed process nor a power cut leaves a broken checkpoint
// under a checkpoint's name; a resume still falls back past one that does not load (a disk can fail too).
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
    // Sums the log reports when its next line is due, so that a resumed run logs what an uninterrupted one does:
    // per-step losses since the last "step" line, and the epoch's loss sum and valid target tokens so far.
    double log_loss_sum = 0;
    int log_steps = 0;
    double epoch_loss_sum = 0;
    int64_t epoch_tokens = 0;
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

// The newest checkpoint of a run folder that loads. Newer ones that do not (truncated, corrupt) are passed over and
// listed in `skipped` with the reason; throws when the folder has none, or when none loads (naming each and why).
struct ResumePoint {
    Checkpoint checkpoint;
    std::string path;
    std::vector<std::pair<std::string, std::string>> skipped;  // path, why it did not load
};
ResumePoint load_newest_checkpoint(const std::string& dir);

// Makes a run's train.jsonl describe the run up to `state` only: drops the "step" lines after state.step and the
// "epoch" lines of epochs not finished in `state` (what a killed process logged after its last checkpoint, which the
// resumed run logs again), and a final line cut short. Rewrites the file atomically when anything is dropped;
// returns the number of lines dropped (0 also when there is no log).
int drop_log_lines_after(const std::string& log_path, const TrainingState& state);

// checkpoint-<step>.safetensors files of a run folder, oldest first.
std::vector<std::string> list_checkpoints(const std::string& dir);
std::string checkpoint_path(const std::string& dir, int64_t step);
// Deletes all but the newest `keep` checkpoints.
void prune_checkpoints(const std::string& dir, int keep);

// An exclusive lock on a run folder (flock on <dir>/train.lock, which holds the holder's pid), taken for a whole
// training run: two trainers writing one folder would prune each other's checkpoints and interleave their logs.
// Throws at once, naming the holder's pid, when another process holds it; released by the destructor or when the
// process ends, however it ends (the kernel drops the lock with the file descriptor). Creates the folder.
class RunFolderLock {
public:
    explicit RunFolderLock(const std::string& dir);
    ~RunFolderLock();
    RunFolderLock(const RunFolderLock&) = delete;
    RunFolderLock& operator=(const RunFolderLock&) = delete;
    static constexpr const char* kFileName = "train.lock";

private:
    int fd_ = -1;
};

// What a training run leaves in its folder: checkpoints (readable or set aside), temporary files of a write cut
// short, train.jsonl, best.safetensors and averaged.safetensors. Empty for a folder that holds no run.
std::vector<std::string> run_files(const std::string& dir);

// Moves the run_files of `dir` into a new subfolder, <dir>/overwritten-<UTC date and time>/ (never over an earlier
// one), so that a new run can start there without losing them; returns the subfolder ("" when there was nothing).
std::string move_run_files_aside(const std::string& dir);

// Element-wise mean of the parameters of several checkpoints of one run (same config); tokenizer and vocabularies
// come from the first.
TranslatorModel average_checkpoints(const std::vector<std::string>& paths);

// Writes bytes to path atomically and durably: a temporary file (path + ".tmp"), fsync, rename, then fsync of the
// folder so the rename itself survives a power cut (skipped where the file system cannot sync a folder). Every
// failure throws naming the file and the system's reason; the temporary file is removed then.
//
// Test hook: with ATTEND_TEST_KILL_IN_WRITE=<file name>:<bytes> in the environment, the write whose target's file
// name is <file name> raises SIGKILL once <bytes> bytes of its temporary file are written (bytes >= the file's size:
// after the sync, just before the rename), so tests can kill a process inside a checkpoint write deterministically.
void write_file_atomically(const std::string& path, const std::vector<uint8_t>& bytes);

}  // namespace attend
