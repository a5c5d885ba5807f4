#include "train_device.h"

#include "devices.h"
#include "error.h"

#ifdef ATTEND_HAVE_CUDA
#include "cuda/transformer_cuda.h"
#endif

namespace attend {

TrainDevice parse_train_device(const std::string& name) {
    if (name == "cpu") return TrainDevice::Cpu;
    if (name == "cuda" || name == "cuda:0") return TrainDevice::Cuda;
    throw Error("--device '" + name + "': expected cpu or cuda");
}

const char* train_device_name(TrainDevice device) { return device == TrainDevice::Cuda ? "cuda" : "cpu"; }

namespace {

// The GPU must be there and usable; the message carries the CUDA runtime's own reason.
void require_gpu() {
    const CudaAvailability cuda = cuda_availability();
    if (!cuda.compiled)
        throw Error("attend train --device cuda: " + cuda.reason + "; train on the CPU with --device cpu");
    if (cuda.gpus == 0)
        throw Error("attend train --device cuda: no usable CUDA GPU (" + cuda.reason +
                    "); `attend devices` lists what this machine has; train on the CPU with --device cpu");
}

}  // namespace

void require_train_device(TrainDevice device) {
    if (device == TrainDevice::Cpu) return;
    require_gpu();
}

TrainResult train_translator_on(TrainDevice device, const TrainOptions& options, bool resume,
                                const TrainHooks& hooks) {
    require_train_device(device);
    TrainOptions o = options;
    o.device = train_device_name(device);  // the trainer makes the step backend for it (make_train_step_backend)
    return train_translator(o, resume, hooks);
}

#ifdef ATTEND_HAVE_CUDA
namespace {

class CudaTrainStep final : public TrainStepBackend {
public:
    CudaTrainStep(const Transformer& model, const AdamConfig& adam) : step_(model, adam) {}
    double step(const TrainStepBatch& b, uint64_t dropout_seed, float label_smoothing, float clip_norm,
                float lr) override {
        const cuda::TransformerBatchView view{b.B, b.S, b.T, b.src, b.src_valid, b.tgt_in, b.tgt_valid, b.tgt_out};
        return step_.train_step(view, dropout_seed, label_smoothing, clip_norm, lr);
    }
    void download(ParameterStore& params, std::vector<float>& m, std::vector<float>& v) override {
        step_.download_params(params);
        step_.download_adam_state(m, v);
    }
    void upload(const ParameterStore& params, const std::vector<float>& m, const std::vector<float>& v,
                int64_t adam_steps) override {
        step_.upload_params(params);
        step_.set_adam_state(m, v, adam_steps);
    }

private:
    cuda::TransformerCuda step_;
};

}  // namespace
#endif

std::unique_ptr<TrainStepBackend> make_train_step_backend(TrainDevice device, const Transformer& model,
                                                          const TrainOptions& o) {
    if (device == TrainDevice::Cpu) return nullptr;
    require_gpu();
#ifdef ATTEND_HAVE_CUDA
    AdamConfig adam;  // as trainer.cpp configures its Adam
    adam.lr = o.lr;
    adam.beta1 = o.beta1;
    adam.beta2 = o.beta2;
    adam.eps = o.adam_eps;
    adam.weight_decay = o.weight_decay;
    return std::make_unique<CudaTrainStep>(model, adam);
#else
    (void)model;
    (void)o;
    throw Error("attend train --device cuda: this build has no CUDA backend");  // require_gpu already said so
#endif
}

}  // namespace attend
