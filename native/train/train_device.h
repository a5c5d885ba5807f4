// `attend train --device cpu|cuda`: which device a training run uses, the check that it can be used here, and the
// step interface through which the trainer (train/trainer.cpp) runs every step, on any device:
//   backend->upload(params, adam.m(), adam.v(), adam.steps());   // fresh or resumed
//   ... per batch: backend->step(batch, step_seed(seed, step), label_smoothing, clip_norm, lr), and its loss by
//       backend->take_loss() (one step later where the backend is asynchronous)
//   ... before a checkpoint, validation or export: backend->download(params, adam.m(), adam.v())
// The CPU step (make_cpu_train_step) works in place on the host copies, so its upload and download copy nothing.
// Only Transformer models with the cross_entropy loss have a GPU step; the trainer refuses anything else on cuda
// before any work.
// The CUDA backend (cuda::TransformerCuda) keeps parameters and Adam moments on the GPU in the CPU's flat layout,
// so a checkpoint written from download() is the same file the CPU trainer writes, and resumes on either device.
#pragma once
#include "model/transformer.h"
#include "train/optimizer.h"
#include "train/train_batch.h"
#include "train/communicator.h"
#include "train/gemm_precision.h"
#include "train/trainer.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace attend {

class TrainableModel;  // train/trainable_model.h

enum class TrainDevice { Cpu, Cuda };

// "cpu" or "cuda" (also "cuda:0"); anything else throws attend::Error naming the accepted values.
TrainDevice parse_train_device(const std::string& name);
const char* train_device_name(TrainDevice device);

// Throws attend::Error when `attend train --device` cannot use `device` in this build on this machine: no CUDA
// backend compiled in, or no usable GPU (with the CUDA runtime's reason). Does nothing for the CPU.
void require_train_device(TrainDevice device);

// Trains on `device`: train_translator with options.device set to it.
TrainResult train_translator_on(TrainDevice device, const TrainOptions& options, bool resume,
                                const TrainHooks& hooks = {});

// What one step measured. The epoch's loss is sum / tokens over its steps (the seeds' printed loss with
// masked_softmax_ce, the mean per token with cross_entropy).
struct StepLoss {
    double mean = 0;     // per valid target token: what is logged and must stay finite
    double sum = 0;      // the loss the step summed (masked_softmax_ce: l.sum(); cross_entropy: over non-pad labels)
    int64_t tokens = 0;  // the target tokens `sum` covers
};

// One training step; parameters and optimizer state live with the step between steps.
// A step may run asynchronously (a GPU queues it and returns): its loss is then taken later, in order, by
// take_loss(), so that the host queues step k + 1 while the device still runs step k instead of waiting for step k's
// loss at the end of every step. An asynchronous backend has at most two steps whose loss was not taken yet.
class TrainStepBackend {
public:
    virtual ~TrainStepBackend() = default;
    // Runs or queues: forward with DropoutStream(model dropout, dropout_seed), the run's loss, backward, global-norm
    // clipping when clip_norm > 0, Adam at lr. A loss that is not finite may leave the parameters either way: the
    // trainer stops when it takes that loss.
    virtual void step(const TrainBatch& batch, uint64_t dropout_seed, float label_smoothing, float clip_norm,
                      float lr) = 0;
    // The loss of the oldest step whose loss has not been taken (waits for it); each step's loss is taken once.
    virtual StepLoss take_loss() = 0;
    // True when step() returns before the step has run: the trainer then takes step k's loss after queuing k + 1.
    virtual bool asynchronous() const { return false; }
    // Step -> host, after every step queued so far: parameters into `params` (the model's store) and the Adam
    // moments (resized to the store).
    virtual void download(ParameterStore& params, std::vector<float>& adam_m, std::vector<float>& adam_v) = 0;
    // Host -> step (after initialising or loading a checkpoint): parameters, Adam moments and the Adam step count.
    virtual void upload(const ParameterStore& params, const std::vector<float>& adam_m,
                        const std::vector<float>& adam_v, int64_t adam_steps) = 0;
    // How a data-parallel step sums the ranks' gradients ("NCCL 2.28, 2 ranks"); empty in one process.
    virtual std::string gradient_sum() const { return {}; }
};

// The CPU step on `model` (allocated with gradients, run through `trainable`, its make_trainable) and `adam`
// themselves, with the run's loss (options.loss); all three must outlive it.
std::unique_ptr<TrainStepBackend> make_cpu_train_step(TranslatorModel& model, TrainableModel& trainable, Adam& adam,
                                                      const TrainOptions& o, Communicator& comm = single_process());

// Null for the CPU (make_cpu_train_step trains there). For cuda: the GPU step (parameters copied from `model`, Adam
// configured as `adam`: the run's adam_config), or an attend::Error naming why not (no CUDA backend in this build,
// no usable GPU). precision: the GEMMs' arithmetic (TrainOptions::precision).
// With ranks (`mpirun -np N attend train --device cuda`) each rank takes GPU local_rank() % GPUs of its machine and
// steps on its share of every batch; the gradients are summed with NCCL when every rank has a GPU of its own, else
// through the host with MPI (ranks sharing a GPU, a build without NCCL). Every rank calls it together.
std::unique_ptr<TrainStepBackend> make_train_step_backend(TrainDevice device, const Transformer& model,
                                                          const AdamConfig& adam,
                                                          GemmPrecision precision = GemmPrecision::FP32,
                                                          Communicator& comm = single_process());

}  // namespace attend
