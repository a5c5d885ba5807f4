// A Transformer training step on the GPU: forward, label-smoothed cross entropy, backward, global-norm clipping and
// Adam, all on the device, as native/train/trainer.cpp runs one step. The forward and backward are the templates the
// CPU runs (core/model/transformer_forward.h, core/train/transformer_backward.h) over the *_cuda kernels
// (cuda/cuda_ops.h).
//
// Parameters, gradients and the Adam moments are flat device buffers with the SAME layout as the CPU
// ParameterStore (element i belongs to the same tensor element), so download_params() into the model's store gives
// a checkpoint the CPU trainer and `attend export` read unchanged, and a CPU checkpoint uploads as it is.
// Dropout uses the same DropoutStream counters in the same order as the CPU forward, so for the same seed the GPU
// drops exactly the elements the CPU drops.
// Activations live in one device arena (its first block arena_bytes, grown by the first steps that need more); once
// the largest batch has been seen a step allocates nothing.
#pragma once
#include "model/transformer.h"
#include "train/optimizer.h"
#include "train/train_batch.h"
#include "cuda/device_allreduce.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace attend::cuda {

class TransformerCuda {
public:
    // Uploads model.params' values; the Adam moments start at zero (t = 0). Throws attend::Error without a GPU.
    TransformerCuda(const Transformer& model, const AdamConfig& adam, size_t arena_bytes = size_t(1) << 30);
    ~TransformerCuda();
    TransformerCuda(const TransformerCuda&) = delete;
    TransformerCuda& operator=(const TransformerCuda&) = delete;

    // Batches are the trainer's (train/train_batch.h): empty valid lengths mean every position is valid; labels
    // equal to config.pad_id are ignored by the loss.
    // The trainer's step: forward with DropoutStream(config.dropout, dropout_seed), loss = sum of row losses /
    // count of non-pad labels, gradients zeroed then backward, clip_grad_norm if clip_norm > 0, Adam at lr.
    // Returns the mean loss (one host synchronisation): queue_train_step, then take_loss.
    // Data-parallel: `batch` may be one rank's share (train/train_batch.h shard_rows, possibly without rows); its
    // loss and gradients are then divided by the whole batch's label count and drop the whole batch's dropout
    // elements, `allreduce` sums the gradients over the ranks before clipping and Adam, and the return value is
    // this share's loss sum / the whole batch's label count (the ranks' values add up to the batch's mean).
    double train_step(const TrainBatch& batch, uint64_t dropout_seed, float label_smoothing, float clip_norm,
                      float lr, DeviceAllreduce* allreduce = nullptr);

    // train_step without waiting: the step is queued on the GPU and its loss copied into page-locked memory behind
    // it. take_loss() returns the queued steps' losses in order (as train_step does), waiting only for the oldest,
    // and *labels the label count the mean is over (a share: the whole batch's); at most two steps' losses may be
    // untaken (a third queue_train_step throws attend::Error).
    void queue_train_step(const TrainBatch& batch, uint64_t dropout_seed, float label_smoothing, float clip_norm,
                          float lr, DeviceAllreduce* allreduce = nullptr);
    double take_loss(int64_t* labels = nullptr);

    // Forward, loss and backward only (no clipping, no update); gradients zeroed first and left on the device.
    // dropout_seed is used only when `dropout` (else the forward runs without dropout). Returns the mean loss.
    double forward_backward(const TrainBatch& batch, bool dropout, uint64_t dropout_seed,
                            float label_smoothing);

    // Forward and loss without dropout (validation): returns the sum of row losses; *count = non-pad labels.
    double loss_sum(const TrainBatch& batch, float label_smoothing, int* count);

    // Host <-> device copies in the ParameterStore layout (store must be the model's layout).
    void upload_params(const ParameterStore& store);
    void download_params(ParameterStore& store) const;
    void download_grads(ParameterStore& store) const;  // store allocated with grads
    std::vector<float> download_logits() const;        // [B,T,V] of the last forward
    void set_adam_state(const std::vector<float>& m, const std::vector<float>& v, int64_t steps);
    void download_adam_state(std::vector<float>& m, std::vector<float>& v) const;
    int64_t adam_steps() const;
    size_t arena_high_water() const;  // bytes of activations the largest step needed

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace attend::cuda
