// `attend devices`: which compute devices this build can use.
#include "cli/command.h"
#include "train/devices.h"
#include "train/gemm.h"
#include "train/native_gemm.h"

#include <cstdio>
#include <thread>

namespace attend::cli {
namespace {

void run_devices() {
    std::printf("cpu: %u hardware threads; training products through %s\n", std::thread::hardware_concurrency(),
                gemm_backend());
    if (const std::string note = gemm_kernel_note(); !note.empty()) std::printf("cpu: note: %s\n", note.c_str());
    CudaAvailability cuda = cuda_availability();
    if (cuda.gpus > 0)
        std::printf("%s", cuda.description.c_str());
    else
        std::printf("cuda: none (%s)\n", cuda.reason.c_str());
}

CommandRegistrar registrar([](CLI::App& app) {
    app.add_subcommand("devices", "List the compute devices this build can use (CPU, CUDA GPUs)")
        ->callback(run_devices);
});

}  // namespace
}  // namespace attend::cli
