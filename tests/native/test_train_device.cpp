// `attend train --device`: parsing, and the clear refusal of cuda when no GPU (or no CUDA backend) is there.
#include <doctest/doctest.h>

#include "devices.h"
#include "error.h"
#include "train_device.h"

#include <string>

using namespace attend;

TEST_CASE("train device: cpu and cuda parse, anything else is refused by name") {
    CHECK(parse_train_device("cpu") == TrainDevice::Cpu);
    CHECK(parse_train_device("cuda") == TrainDevice::Cuda);
    CHECK(parse_train_device("cuda:0") == TrainDevice::Cuda);
    try {
        parse_train_device("tpu");
        FAIL("no error for tpu");
    } catch (const Error& e) {
        CHECK(std::string(e.what()) == "--device 'tpu': expected cpu or cuda");
    }
    CHECK_NOTHROW(require_train_device(TrainDevice::Cpu));
}

TEST_CASE("train device: --device cuda without a usable GPU is an error that says why") {
    const CudaAvailability cuda = cuda_availability();
    if (cuda.gpus > 0) {
        MESSAGE("a GPU is present (" << cuda.description << "): the no-GPU refusal cannot be observed here");
        return;
    }
    try {
        require_train_device(TrainDevice::Cuda);
        FAIL("--device cuda was accepted without a GPU");
    } catch (const Error& e) {
        const std::string m = e.what();
        CHECK(m.find("attend train --device cuda") != std::string::npos);
        CHECK(m.find(cuda.reason) != std::string::npos);  // the runtime's reason, verbatim
        CHECK(m.find("--device cpu") != std::string::npos);
    }
}

TEST_CASE("train device: the step backend is null for the CPU and refused with the reason without a GPU") {
    TransformerConfig c;
    c.model_dim = 16;
    c.heads = 2;
    c.encoder_layers = c.decoder_layers = 1;
    c.ffn_dim = 32;
    c.src_vocab = c.tgt_vocab = 11;
    c.max_len = 16;
    const Transformer model(c);
    const TrainOptions options;
    CHECK(make_train_step_backend(TrainDevice::Cpu, model, options) == nullptr);
    const CudaAvailability cuda = cuda_availability();
    if (cuda.gpus > 0) {
        MESSAGE("a GPU is present: the CUDA step itself is tested in tests/cuda/test_transformer_cuda.cpp");
        return;
    }
    try {
        make_train_step_backend(TrainDevice::Cuda, model, options);
        FAIL("a CUDA step backend was made without a GPU");
    } catch (const Error& e) {
        CHECK(std::string(e.what()).find(cuda.reason) != std::string::npos);
    }
}
