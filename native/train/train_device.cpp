#include "train/train_device.h"

#include "error.h"
#include "model/dropout.h"
#include "train/devices.h"
#include "train/loss.h"
#include "train/trainable_model.h"
#include "translate/transformer_network.h"

#ifdef ATTEND_HAVE_CUDA
#include "cuda/device_allreduce.h"
#include "cuda/cublas_linear.h"
#include "cuda/device_memory.h"
#include "cuda/transformer_cuda.h"
#endif

#include <algorithm>
#include <cstdlib>
#include <cmath>

namespace attend {

TrainDevice parse_train_device(const std::string& name) {
    if (name == "cpu") return TrainDevice::Cpu;
    if (name == "cuda" || name == "cuda:0") return TrainDevice::Cuda;
    throw Error("--device '" + name + "': expected cpu or cuda");
}

const char* train_device_name(TrainDevice device) { return device == TrainDevice::Cuda ? "cuda" : "cpu"; }

const std::vector<std::string>& gemm_precision_names() {
    static const std::vector<std::string> names{"fp32", "tf32", "bf16"};
    return names;
}

GemmPrecision parse_gemm_precision(const std::string& name) {
    const std::vector<std::string>& names = gemm_precision_names();
    const auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) throw Error("--precision '" + name + "': expected fp32, tf32 or bf16");
    return static_cast<GemmPrecision>(it - names.begin());
}

const char* gemm_precision_name(GemmPrecision p) { return gemm_precision_names()[static_cast<size_t>(p)].c_str(); }

// The GPU must be there and usable; the message carries the CUDA runtime's own reason.
void require_train_device(TrainDevice device) {
    if (device == TrainDevice::Cpu) return;
    const CudaAvailability cuda = cuda_availability();
    if (!cuda.compiled)
        throw Error("attend train --device cuda: " + cuda.reason + "; train on the CPU with --device cpu");
    if (cuda.gpus == 0)
        throw Error("attend train --device cuda: no usable CUDA GPU (" + cuda.reason +
                    "); `attend devices` lists what this machine has; train on the CPU with --device cpu");
}

TrainResult train_translator_on(TrainDevice device, const TrainOptions& options, bool resume,
                                const TrainHooks& hooks) {
    TrainOptions o = options;
    o.device = train_device_name(device);
    return train_translator(o, resume, hooks);
}

namespace {

#ifdef ATTEND_HAVE_CUDA
// The ranks' gradients through the host: a copy down, MPI_Allreduce, a copy up.
class HostAllreduce final : public cuda::DeviceAllreduce {
public:
    explicit HostAllreduce(Communicator& comm) : comm_(comm) {}
    void sum(float* data, size_t n) override {
        host_.resize(n);
        cuda::copy_to_host(host_.data(), data, n);
        comm_.allreduce_sum(host_.data(), n);
        cuda::copy_to_device(data, host_.data(), n);
    }
    std::string describe() const override { return "the host (" + comm_.describe() + ")"; }

private:
    Communicator& comm_;
    std::vector<float> host_;
};

// Takes this rank's GPU, then agrees with the other ranks on how to sum gradients: NCCL when every rank has a GPU of
// its own (NCCL refuses two ranks on one GPU), else the host. Null in one process.
// ATTEND_GPU_GRADIENT_SUM=nccl|host chooses the way, also in one process (where the sum changes nothing, which makes
// it a check that the way works).
std::unique_ptr<cuda::DeviceAllreduce> gradient_allreduce(Communicator& comm) {
    const char* chosen = std::getenv("ATTEND_GPU_GRADIENT_SUM");
    const std::string way = chosen ? chosen : "";
    if (!way.empty() && way != "nccl" && way != "host")
        throw Error("ATTEND_GPU_GRADIENT_SUM='" + way + "': expected nccl or host");
    std::string gpu;
    cuda::use_device_of_local_rank(local_rank(), &gpu);
    if (comm.size() == 1 && way.empty()) return nullptr;
    std::vector<std::string> gpus = comm.allgather(gpu);
    std::sort(gpus.begin(), gpus.end());
    const bool own_gpus = std::adjacent_find(gpus.begin(), gpus.end()) == gpus.end();
    if (way == "nccl" && !cuda::nccl_compiled())
        throw Error("ATTEND_GPU_GRADIENT_SUM=nccl: this build has no NCCL (the CUDA toolkit's nccl.h was not found)");
    if (way == "nccl" && !own_gpus)
        throw Error("ATTEND_GPU_GRADIENT_SUM=nccl: ranks share a GPU, which NCCL refuses; start one rank per GPU "
                    "(`attend devices` lists them) or sum through the host");
    if (way == "host" || !own_gpus || !cuda::nccl_compiled()) return std::make_unique<HostAllreduce>(comm);
    const std::vector<std::string> ids = comm.allgather(comm.rank() == 0 ? cuda::nccl_unique_id() : std::string());
    return cuda::make_nccl_allreduce(ids[0], comm.rank(), comm.size());
}

class CudaTrainStep final : public TrainStepBackend {
public:
    CudaTrainStep(const Transformer& model, const AdamConfig& adam, Communicator& comm)
        : comm_(comm), allreduce_(gradient_allreduce(comm)), step_(model, adam) {}
    // Queued on the GPU; the loss comes back through pinned memory and is read when taken, a step later.
    void step(const TrainBatch& b, uint64_t dropout_seed, float label_smoothing, float clip_norm,
              float lr) override {
        step_.queue_train_step(b, dropout_seed, label_smoothing, clip_norm, lr, allreduce_.get());
    }
    StepLoss take_loss() override {
        StepLoss loss;
        const double mean = step_.take_loss(&loss.tokens);
        loss.sum = mean * std::max<int64_t>(1, loss.tokens);  // with ranks: this share's (the trainer shards then)
        if (comm_.size() > 1) comm_.allreduce_sum(&loss.sum, 1);  // every rank takes it at the same step
        loss.mean = loss.sum / std::max<int64_t>(1, loss.tokens);
        return loss;
    }
    bool asynchronous() const override { return true; }
    void download(ParameterStore& params, std::vector<float>& m, std::vector<float>& v) override {
        step_.download_params(params);
        step_.download_adam_state(m, v);
    }
    void upload(const ParameterStore& params, const std::vector<float>& m, const std::vector<float>& v,
                int64_t adam_steps) override {
        step_.upload_params(params);
        step_.set_adam_state(m, v, adam_steps);
    }
    std::string gradient_sum() const override { return allreduce_ ? allreduce_->describe() : std::string(); }

private:
    Communicator& comm_;
    std::unique_ptr<cuda::DeviceAllreduce> allreduce_;  // before step_: the rank's GPU is chosen first
    cuda::TransformerCuda step_;
};
#endif

}  // namespace

std::unique_ptr<TrainStepBackend> make_train_step_backend(TrainDevice device, const Transformer& model,
                                                          const AdamConfig& adam, GemmPrecision precision,
                                                          Communicator& comm) {
    if (device == TrainDevice::Cpu) return nullptr;
    require_train_device(device);  // a public entry point: the same refusal as the trainer's
#ifdef ATTEND_HAVE_CUDA
    cuda::set_gemm_precision(precision);  // the process's GEMMs: every run sets it
    return std::make_unique<CudaTrainStep>(model, adam, comm);
#else
    (void)model;
    (void)adam;
    (void)precision;
    (void)comm;
    throw Error("attend train --device cuda: this build has no CUDA backend");  // require_train_device already said so
#endif
}

bool has_gpu_train_step(const std::string& architecture) { return architecture == TransformerNetwork::kArchitecture; }

std::unique_ptr<TrainStepBackend> make_gpu_train_step(TrainDevice device, const TranslatorNetwork& network,
                                                      const AdamConfig& adam, GemmPrecision precision,
                                                      Communicator& comm) {
    return make_train_step_backend(device, network_as<TransformerNetwork>(network, "the GPU step").model, adam,
                                   precision, comm);
}

}  // namespace attend
