// One training step of a translator on the CPU, behind the interface every device's step has (native GPU steps:
// native/train/train_device.h), so that one loop drives them all:
//   backend->upload(params, adam.m(), adam.v(), adam.steps());   // fresh or resumed
//   ... per batch: backend->step(batch, step_seed(seed, step), label_smoothing, clip_norm, lr), and its loss by
//       backend->take_loss() (one step later where the backend is asynchronous)
//   ... before a checkpoint, validation or export: backend->download(params, adam.m(), adam.v())
// The CPU step works in place on the host copies, so its upload and download copy nothing.
#pragma once
#include "train/collective.h"
#include "train/optimizer.h"
#include "train/train_batch.h"
#include "train/train_options.h"
#include "translate/model_file.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace attend {

class TrainableModel;  // train/trainable_model.h

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

// The learning rate of step `step` (1-based): linear warmup to TrainOptions::lr, then lr * sqrt(warmup / step), scaled
// down to 0 over the cooldown epochs; epochs_done: the fraction of the run's epochs done before this step (epoch +
// batch / batches).
float learning_rate(const TrainOptions& o, int64_t step, double epochs_done);

// The dropout seed of step `step` of a run seeded `seed`: a resumed run draws the same masks.
uint64_t step_seed(uint64_t seed, int64_t step);

}  // namespace attend
