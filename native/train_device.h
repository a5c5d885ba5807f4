// `attend train --device cpu|cuda`: which device a training run uses, the check that it can be used here, and the
// hook through which the trainer runs its step on that device.
//
// The hook: native/train/trainer.cpp keeps its loop (batches, checkpoints, validation, logging) and, for a device
// other than the CPU (TrainOptions::device), hands each step to a TrainStepBackend made by make_train_step_backend():
//   auto backend = make_train_step_backend(device, model, options);        // null for the CPU
//   if (backend) backend->upload(params, adam.m(), adam.v(), adam.steps());  // fresh or resumed
//   ... per batch:
//   loss = backend ? backend->step(view, step_seed(o.seed, state.step), o.label_smoothing, o.clip_norm,
//                                  learning_rate(o, state.step + 1, epochs done))
//                  : <the CPU step>;
//   ... before a checkpoint, validation or export: if (backend) backend->download(params, adam.m(), adam.v());
// Only Transformer models with the cross_entropy loss have a device step; the trainer refuses anything else on cuda
// before any work.
// The CUDA backend (cuda::TransformerCuda) keeps parameters and Adam moments on the GPU in the CPU's flat layout,
// so a checkpoint written from download() is the same file the CPU trainer writes, and resumes on either device.
#pragma once
#include "model/transformer.h"
#include "train/trainer.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace attend {

enum class TrainDevice { Cpu, Cuda };

// "cpu" or "cuda" (also "cuda:0"); anything else throws attend::Error naming the accepted values.
TrainDevice parse_train_device(const std::string& name);
const char* train_device_name(TrainDevice device);

// Throws attend::Error when `attend train --device` cannot use `device` in this build on this machine: no CUDA
// backend compiled in, or no usable GPU (with the CUDA runtime's reason). Does nothing for the CPU.
void require_train_device(TrainDevice device);

// Trains on `device` (require_train_device first): train_translator with options.device set to it.
TrainResult train_translator_on(TrainDevice device, const TrainOptions& options, bool resume,
                                const TrainHooks& hooks = {});

// One padded batch as trainer.cpp's Batch holds it (host pointers; labels equal to the model's pad_id are ignored).
struct TrainStepBatch {
    int B = 0, S = 0, T = 0;
    const int* src = nullptr;        // [B,S]
    const int* src_valid = nullptr;  // [B] or null
    const int* tgt_in = nullptr;     // [B,T]
    const int* tgt_valid = nullptr;  // [B] or null
    const int* tgt_out = nullptr;    // [B,T]
};

// A training step on a device other than the CPU; parameters and optimizer state live there between steps.
class TrainStepBackend {
public:
    virtual ~TrainStepBackend() = default;
    // Forward with DropoutStream(model dropout, dropout_seed), label-smoothed cross entropy averaged over the
    // non-pad labels, backward, global-norm clipping when clip_norm > 0, Adam at lr. Returns the mean loss.
    virtual double step(const TrainStepBatch& batch, uint64_t dropout_seed, float label_smoothing, float clip_norm,
                        float lr) = 0;
    // Device -> host: parameters into `params` (the model's store) and the Adam moments (resized to the store).
    virtual void download(ParameterStore& params, std::vector<float>& adam_m, std::vector<float>& adam_v) = 0;
    // Host -> device (after loading a checkpoint): parameters, Adam moments and the Adam step count.
    virtual void upload(const ParameterStore& params, const std::vector<float>& adam_m,
                        const std::vector<float>& adam_v, int64_t adam_steps) = 0;
};

// Null for the CPU. For cuda: the GPU step (parameters copied from `model`, Adam configured from `options`), or an
// attend::Error naming why not (no CUDA backend in this build, no usable GPU).
std::unique_ptr<TrainStepBackend> make_train_step_backend(TrainDevice device, const Transformer& model,
                                                          const TrainOptions& options);

}  // namespace attend
