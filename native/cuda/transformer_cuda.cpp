// Plain C++ (compiled by the host compiler): the device state, the batch upload, the loss and Adam. The forward and
// backward are the CPU's templates (core/model/transformer_forward.h, core/train/transformer_backward.h) over
// CudaOps.
#include "cuda/transformer_cuda.h"

#include "cuda/attention_cuda.h"
#include "cuda/cross_entropy_cuda.h"
#include "cuda/cuda_ops.h"
#include "cuda/device_memory.h"
#include "cuda/optimizer_cuda.h"
#include "error.h"
#include "model/transformer_forward.h"
#include "train/transformer_backward.h"

#include <algorithm>
#include <string>

namespace attend::cuda {

namespace {

// A TrainBatch as the host pointers the kernels' uploads read; null where the batch has no such vector.
struct TransformerBatchView {
    int B = 0, S = 0, T = 0;
    const int* src = nullptr;        // [B,S]
    const int* src_valid = nullptr;  // [B] or null (all valid)
    const int* tgt_in = nullptr;     // [B,T] decoder input
    const int* tgt_valid = nullptr;  // [B] or null
    const int* tgt_out = nullptr;    // [B,T] labels or null
};

TransformerBatchView view_of(const TrainBatch& b) {
    auto ptr = [](const std::vector<int>& v) { return v.empty() ? nullptr : v.data(); };
    return {b.B, b.S, b.T, ptr(b.src), ptr(b.src_valid), ptr(b.tgt_in), ptr(b.tgt_valid), ptr(b.tgt_out)};
}

// The CPU's ids and valid lengths are checked by the kernels that read them (they throw); the GPU kernels cannot,
// so the same checks run here on the host before the upload.
void check_ids(const int* ids, size_t n, int V, const char* what) {
    for (size_t i = 0; i < n; ++i)
        if (ids[i] < 0 || ids[i] >= V)
            throw Error(std::string("transformer (cuda): ") + what + " id " + std::to_string(ids[i]) + " at position " +
                        std::to_string(i) + " is outside the vocabulary [0, " + std::to_string(V) + ")");
}
void check_labels(const int* ids, size_t n, int V, int pad) {
    for (size_t i = 0; i < n; ++i)
        if (ids[i] != pad && (ids[i] < 0 || ids[i] >= V))
            throw Error("transformer (cuda): label " + std::to_string(ids[i]) + " at position " + std::to_string(i) +
                        " is outside [0, " + std::to_string(V) + ") and is not the padding id " + std::to_string(pad));
}
void check_lens(const int* lens, int B, int T, const char* what) {
    if (!lens) return;
    for (int b = 0; b < B; ++b)
        if (lens[b] < 0 || lens[b] > T)
            throw Error(std::string("transformer (cuda): ") + what + " valid length " + std::to_string(lens[b]) +
                        " of batch row " + std::to_string(b) + ", expected 0.." + std::to_string(T));
}

// A batch's ids go to the GPU in one asynchronous copy from page-locked memory, so the host goes on queueing the
// forward's kernels instead of waiting for five small synchronous copies. The staging memory is refilled only once
// the previous copy from it has run (an event marks it).
class IdUploader {
public:
    IdUploader() { CUDA_CHECK(cudaEventCreateWithFlags(&copied_, cudaEventDisableTiming)); }
    ~IdUploader() {
        cudaEventSynchronize(copied_);  // the last copy reads the page-locked staging memory freed after this
        cudaEventDestroy(copied_);
    }
    IdUploader(const IdUploader&) = delete;
    IdUploader& operator=(const IdUploader&) = delete;

    // out[i] = a device copy of parts[i] (sizes[i] ints), or null where parts[i] is null; all from `arena`.
    void upload(DeviceArena& arena, const int* const* parts, const size_t* sizes, int** out, int count) {
        size_t total = 0;
        for (int i = 0; i < count; ++i) total += parts[i] ? sizes[i] : 0;
        CUDA_CHECK(cudaEventSynchronize(copied_));
        int* host = staging_.reserve(total);
        int* device = arena.alloc<int>(total, "batch ids");
        size_t at = 0;
        for (int i = 0; i < count; ++i) {
            out[i] = parts[i] ? device + at : nullptr;
            if (!parts[i]) continue;
            std::copy(parts[i], parts[i] + sizes[i], host + at);
            at += sizes[i];
        }
        if (total)
            CUDA_CHECK(cudaMemcpyAsync(device, host, total * sizeof(int), cudaMemcpyHostToDevice, cudaStreamLegacy));
        CUDA_CHECK(cudaEventRecord(copied_, cudaStreamLegacy));
    }

private:
    PinnedBuffer<int> staging_;
    cudaEvent_t copied_ = nullptr;
};

// The losses of queued steps on their way to the host: each step's loss total is copied into a page-locked slot of
// its own behind the step, and read once that copy has run (its event). Two slots: the host reads step k's while the
// GPU may already write step k + 1's.
class LossSlots {
public:
    LossSlots() {
        totals_ = pinned_.reserve(kSlots);
        for (cudaEvent_t& e : copied_) CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    }
    ~LossSlots() {
        // A copy still queued must not land in freed page-locked memory (a run stopped between queue and take).
        for (int k = 0; k < queued_; ++k) cudaEventSynchronize(copied_[(first_ + k) % kSlots]);
        for (cudaEvent_t e : copied_) cudaEventDestroy(e);
    }
    LossSlots(const LossSlots&) = delete;
    LossSlots& operator=(const LossSlots&) = delete;

    // Throws unless a step may be queued: at most kSlots losses wait to be taken.
    void require_free_slot() const {
        if (queued_ == kSlots)
            throw Error("transformer (cuda): " + std::to_string(kSlots) + " steps' losses are not taken yet; take_loss() "
                        "before queuing another step");
    }

    // Queues the copy of the device total (null: the step had no rows, its loss is 0) and the label count the mean
    // divides it by.
    void push(const double* device_total, int64_t labels) {
        require_free_slot();
        const int slot = (first_ + queued_) % kSlots;
        labels_[slot] = labels;
        has_total_[slot] = device_total != nullptr;
        if (device_total)
            CUDA_CHECK(cudaMemcpyAsync(totals_ + slot, device_total, sizeof(double),
                                       cudaMemcpyDeviceToHost, cudaStreamLegacy));
        CUDA_CHECK(cudaEventRecord(copied_[slot], cudaStreamLegacy));
        ++queued_;
    }

    // The oldest queued step's mean loss (total / labels, at least 1), once its copy has run; *labels its count.
    double take(int64_t* labels) {
        if (queued_ == 0) throw Error("transformer (cuda): take_loss() without a queued step whose loss was not taken");
        const int slot = first_;
        CUDA_CHECK(cudaEventSynchronize(copied_[slot]));
        first_ = (first_ + 1) % kSlots;
        --queued_;
        if (labels) *labels = labels_[slot];
        return has_total_[slot] ? totals_[slot] / double(std::max<int64_t>(1, labels_[slot])) : 0.0;
    }

private:
    static constexpr int kSlots = 2;
    PinnedBuffer<double> pinned_;
    double* totals_ = nullptr;  // [kSlots], in pinned_
    cudaEvent_t copied_[kSlots] = {};
    int64_t labels_[kSlots] = {};
    bool has_total_[kSlots] = {};
    int first_ = 0, queued_ = 0;
};

}  // namespace

// ------------------------------------------------------------------------------------------ the model on the device
struct TransformerCuda::Impl {
    TransformerLayout layout;
    const TransformerConfig& config = layout.config;
    size_t n = 0;
    AdamConfig adam;
    int64_t adam_t = 0;

    DeviceBuffer<float> values, grads, m, v;
    DeviceBuffer<double> scalars;   // [0] loss total, [1] gradient norm
    DeviceBuffer<double> partials;  // global norm partial sums
    DeviceArena arena;
    CudaOps ops{arena};
    IdUploader ids;
    LossSlots losses;

    // The last forward's batch and activations (valid until the next forward).
    int B = 0, S = 0, T = 0;
    int *src = nullptr, *tgt_in = nullptr, *tgt_out = nullptr, *src_valid = nullptr, *tgt_valid = nullptr;
    TransformerTensors acts;

    Impl(const Transformer& model, const AdamConfig& a, size_t arena_bytes)
        : layout(model), n(model.params.size()), adam(a), values(n), grads(n), m(n), v(n), scalars(2),
          partials(global_grad_norm_partials(n)), arena(arena_bytes) {
        if (config.head_dim() > kAttentionMaxHeadDim)
            throw Error("transformer (cuda): head dimension " + std::to_string(config.head_dim()) +
                        " (model_dim / heads), the CUDA attention kernels support at most " +
                        std::to_string(kAttentionMaxHeadDim));
        values.upload(model.params.values(), n);
        grads.zero();
        m.zero();
        v.zero();
    }

    AttnMask source_mask() const {
        AttnMask mk;
        mk.valid_lens = src_valid;
        return mk;
    }
    AttnMask target_mask() const {
        AttnMask mk;
        mk.causal = true;
        mk.valid_lens = tgt_valid;
        return mk;
    }

    // plan_transformer + transformer_forward. The arena is rewound: the previous step's activations are gone.
    void forward(const TransformerBatchView& b, DropoutStream* dropout) {
        const TransformerConfig& c = config;
        if (b.B <= 0) throw Error("transformer (cuda): batch size " + std::to_string(b.B) + ", expected > 0");
        if (b.S <= 0 || b.S > c.max_len)
            throw Error("transformer (cuda): source length " + std::to_string(b.S) + ", expected 1.." +
                        std::to_string(c.max_len));
        if (b.T <= 0 || b.T > c.max_len)
            throw Error("transformer (cuda): target length " + std::to_string(b.T) + ", expected 1.." +
                        std::to_string(c.max_len));
        check_ids(b.src, size_t(b.B) * b.S, c.src_vocab, "source");
        check_ids(b.tgt_in, size_t(b.B) * b.T, c.tgt_vocab, "target");
        if (b.tgt_out) check_labels(b.tgt_out, size_t(b.B) * b.T, c.tgt_vocab, c.pad_id);
        check_lens(b.src_valid, b.B, b.S, "source");
        check_lens(b.tgt_valid, b.B, b.T, "target");
        B = b.B;
        S = b.S;
        T = b.T;
        arena.release(0);
        {
            const int* parts[] = {b.src, b.tgt_in, b.tgt_out, b.src_valid, b.tgt_valid};
            const size_t sizes[] = {size_t(B) * S, size_t(B) * T, size_t(B) * T, size_t(B), size_t(B)};
            int** out[] = {&src, &tgt_in, &tgt_out, &src_valid, &tgt_valid};
            int* device[5];
            ids.upload(arena, parts, sizes, device, 5);
            for (int i = 0; i < 5; ++i) *out[i] = device[i];
        }
        acts.B = B;
        acts.S = S;
        acts.T = T;
        plan_transformer_tensors(acts, ops, c, /*keep_weights=*/false);
        transformer_forward(ops, acts, layout, values.get(), src, tgt_in, source_mask(), target_mask(), dropout);
    }

    void backward(const float* dlogits) {
        transformer_backward(ops, layout, values.get(), grads.get(), acts, dlogits, src, tgt_in, source_mask(),
                             target_mask());
    }

    int label_count(const TransformerBatchView& b) const {
        int count = 0;
        for (int i = 0; i < B * T; ++i) count += b.tgt_out[i] != config.pad_id;
        return count;
    }

    // Loss of the last forward (sum of row losses into scalars[0]); returns the label count. With `dlogits`, also
    // the gradient of the loss / divisor: the count, or `denominator` when > 0 (a data-parallel share: the whole
    // batch's labels). `in_place`: the logits themselves become that gradient (cross_entropy_fused_cuda), which
    // spares the two [N, V] buffers of the softmax and the gradient; dlogits must then be null.
    int loss(const TransformerBatchView& b, float label_smoothing, float* dlogits, int64_t denominator = 0,
             bool in_place = false) {
        const int N = B * T, V = config.tgt_vocab;
        const int count = label_count(b);
        const float scale = 1.0f / static_cast<float>(denominator > 0 ? denominator : std::max(1, count));
        float* losses = arena.alloc<float>(N, "row losses");
        if (in_place) {
            cross_entropy_fused_cuda(losses, scalars.get(), acts.logits, tgt_out, config.pad_id, label_smoothing, scale,
                                     N, V);
            return count;
        }
        float* probs = arena.alloc<float>(size_t(N) * V, "loss probabilities");
        cross_entropy_forward_cuda(losses, probs, scalars.get(), acts.logits, tgt_out, config.pad_id, label_smoothing,
                                   N, V);
        if (dlogits)
            cross_entropy_backward_cuda(dlogits, nullptr, scale, probs, tgt_out, config.pad_id, label_smoothing, N, V);
        return count;
    }

    double loss_total() const {
        double total = 0;
        copy_to_host(&total, scalars.get(), 1);
        return total;
    }

    // Forward, loss (its total in scalars[0], not read) and backward; returns the label count of the mean loss: the
    // `denominator` labels, or this batch's own count when it is 0.
    // in_place: the classifier's gradient overwrites the logits (the training step, which reads them no more).
    int64_t queue_forward_backward(const TransformerBatchView& b, DropoutStream* dropout, float label_smoothing,
                                   int64_t denominator = 0, bool in_place = false) {
        if (!b.tgt_out) throw Error("transformer (cuda): a training step needs labels (tgt_out)");
        forward(b, dropout);
        const size_t N = size_t(B) * T;
        grads.zero();
        float* dlogits = in_place ? acts.logits : ops.take_zero(N * config.tgt_vocab);
        const int count = loss(b, label_smoothing, in_place ? nullptr : dlogits, denominator, in_place);
        backward(dlogits);
        return denominator > 0 ? denominator : count;
    }
};
TransformerCuda::TransformerCuda(const Transformer& model, const AdamConfig& adam, size_t arena_bytes)
    : impl_(std::make_unique<Impl>(model, adam, arena_bytes)) {}

TransformerCuda::~TransformerCuda() = default;

double TransformerCuda::train_step(const TrainBatch& batch, uint64_t dropout_seed, float label_smoothing,
                                   float clip_norm, float lr, DeviceAllreduce* allreduce) {
    queue_train_step(batch, dropout_seed, label_smoothing, clip_norm, lr, allreduce);
    return take_loss();
}

void TransformerCuda::queue_train_step(const TrainBatch& batch, uint64_t dropout_seed, float label_smoothing,
                                       float clip_norm, float lr, DeviceAllreduce* allreduce) {
    Impl& m = *impl_;
    m.losses.require_free_slot();  // before anything is queued
    DropoutStream dropout(m.config.dropout, dropout_seed);
    const bool share = batch.total_rows > 0;
    if (share && batch.B > 0) dropout.set_rows(batch.row_begin, batch.B, batch.total_rows);
    if (batch.B > 0) {
        const int64_t labels = m.queue_forward_backward(view_of(batch), &dropout, label_smoothing,
                                                        share ? batch.global_labels : 0, /*in_place=*/true);
        m.losses.push(m.scalars.get(), labels);  // the copy runs after the loss kernel that wrote the total
    } else {
        m.grads.zero();  // a share without rows adds nothing to the sum
        m.losses.push(nullptr, batch.global_labels);
    }
    if (allreduce) allreduce->sum(m.grads.get(), m.n);
    if (clip_norm > 0) clip_grad_norm_cuda(m.scalars.get() + 1, m.grads.get(), m.n, clip_norm, m.partials.get());
    ++m.adam_t;
    adam_update_cuda(m.values.get(), m.m.get(), m.v.get(), m.grads.get(), m.n, m.adam_t, lr, m.adam);
}

double TransformerCuda::take_loss(int64_t* labels) { return impl_->losses.take(labels); }

double TransformerCuda::forward_backward(const TrainBatch& batch, bool dropout, uint64_t dropout_seed,
                                         float label_smoothing) {
    DropoutStream stream(impl_->config.dropout, dropout_seed);
    const int64_t labels = impl_->queue_forward_backward(view_of(batch), dropout ? &stream : nullptr, label_smoothing);
    return impl_->loss_total() / double(std::max<int64_t>(1, labels));
}

double TransformerCuda::loss_sum(const TrainBatch& batch, float label_smoothing, int* count) {
    const TransformerBatchView view = view_of(batch);
    if (!view.tgt_out) throw Error("transformer (cuda): loss_sum needs labels (tgt_out)");
    impl_->forward(view, nullptr);
    const int c = impl_->loss(view, label_smoothing, nullptr);
    if (count) *count = c;
    return impl_->loss_total();
}

void TransformerCuda::upload_params(const ParameterStore& store) {
    if (store.size() != impl_->n)
        throw Error("TransformerCuda::upload_params: the store holds " + std::to_string(store.size()) +
                    " floats, the model " + std::to_string(impl_->n));
    impl_->values.upload(store.values(), impl_->n);
}

void TransformerCuda::download_params(ParameterStore& store) const {
    if (store.size() != impl_->n)
        throw Error("TransformerCuda::download_params: the store holds " + std::to_string(store.size()) +
                    " floats, the model " + std::to_string(impl_->n));
    impl_->values.download(store.values(), impl_->n);
}

void TransformerCuda::download_grads(ParameterStore& store) const {
    if (store.size() != impl_->n || !store.has_grads())
        throw Error("TransformerCuda::download_grads: the store must have the model's layout and gradients");
    impl_->grads.download(store.grads(), impl_->n);
}

std::vector<float> TransformerCuda::download_logits() const {
    const Impl& m = *impl_;
    std::vector<float> out(size_t(m.B) * m.T * m.config.tgt_vocab);
    if (m.acts.logits) copy_to_host(out.data(), m.acts.logits, out.size());
    return out;
}

void TransformerCuda::set_adam_state(const std::vector<float>& mh, const std::vector<float>& vh, int64_t steps) {
    if (mh.size() != impl_->n || vh.size() != impl_->n)
        throw Error("TransformerCuda::set_adam_state: moments of " + std::to_string(mh.size()) + " / " +
                    std::to_string(vh.size()) + " floats, expected " + std::to_string(impl_->n));
    impl_->m.upload(mh);
    impl_->v.upload(vh);
    impl_->adam_t = steps;
}

void TransformerCuda::download_adam_state(std::vector<float>& mh, std::vector<float>& vh) const {
    impl_->m.download(mh);
    impl_->v.download(vh);
}

int64_t TransformerCuda::adam_steps() const { return impl_->adam_t; }
size_t TransformerCuda::arena_high_water() const { return impl_->arena.high_water(); }

}  // namespace attend::cuda
