// `attend train --device cuda` as users run it: TF32 and BF16 GEMMs, and data-parallel `mpirun -np N attend train --device cuda`,
// each rank stepping on its share of every batch and the gradients summed over NCCL (a GPU per rank) or through the
// host (ranks sharing a GPU).
//
// One GPU is enough for every case here: two ranks on it sum through the host, and NCCL is checked over one rank,
// where the sum must leave every bit as it is. Tolerances are the CPU data-parallel tests'
// (tests/native/test_train_mpi.cpp): the shares' gradients summed in another order differ by float rounding.
#include "cuda_test_util.h"

#include "cuda/device_allreduce.h"
#include "native/mpi_test_util.h"

#include <cstring>
#include <string>
#include <vector>

using namespace attend;
using namespace attend_test;

namespace {

std::string gpu_train_args(const std::string& out, int max_steps) {
    return train_args(out, max_steps) + " --device cuda";
}

}  // namespace

TEST_CASE("cuda: NCCL over one rank leaves a device buffer's bits as they are") {
    ATTEND_REQUIRE_GPU();
    if (!cuda::nccl_compiled()) {
        MESSAGE("SKIPPED: this build has no NCCL (the CUDA toolkit's nccl.h was not found)");
        return;
    }
    cuda::use_device_of_local_rank(0);
    const std::unique_ptr<cuda::DeviceAllreduce> nccl = cuda::make_nccl_allreduce(cuda::nccl_unique_id(), 0, 1);
    CHECK(nccl->describe().find("NCCL 2.") == 0);
    const std::vector<float> host = cuda_test::random_vector(100003, 7);
    cuda::DeviceBuffer<float> buffer(host);
    nccl->sum(buffer.get(), host.size());
    std::vector<float> back(host.size());
    buffer.download(back);
    CHECK(std::memcmp(back.data(), host.data(), host.size() * sizeof(float)) == 0);
}

TEST_CASE("cuda: a wrong id for an NCCL group is refused with a clear message") {
    ATTEND_REQUIRE_GPU();
    if (!cuda::nccl_compiled()) {
        MESSAGE("SKIPPED: this build has no NCCL");
        return;
    }
    CHECK_THROWS_WITH_AS(cuda::make_nccl_allreduce("short", 0, 1), doctest::Contains("NCCL id of 5 bytes"), Error);
}

TEST_CASE("cuda: training with gradients summed over NCCL (one rank) or through the host equals training without") {
    ATTEND_REQUIRE_GPU();
    require_mpi();
    const std::string plain = fresh_run_dir("gpu-plain");
    run_ok(attend_binary() + gpu_train_args(plain, 10));
    for (const std::string way : {"host", "nccl"}) {
        CAPTURE(way);
        if (way == "nccl" && !cuda::nccl_compiled()) {
            MESSAGE("SKIPPED (NCCL part): this build has no NCCL");
            continue;
        }
        const std::string dir = fresh_run_dir("gpu-" + way);
        const std::string output =
            run_ok("ATTEND_GPU_GRADIENT_SUM=" + way + " " + attend_binary() + gpu_train_args(dir, 10));
        CHECK(output.find(way == "nccl" ? "gradients summed over NCCL" : "gradients summed over the host") !=
              std::string::npos);
        check_same_losses(step_losses(dir), step_losses(plain), 1e-6);
        check_same_parameters(dir, plain, 1e-5);
    }
}

TEST_CASE("cuda: 2 ranks on one GPU train what 1 process trains on the whole batch") {
    ATTEND_REQUIRE_GPU();
    require_mpi();
    const std::string output = check_two_ranks_train_like_one("gpu", " --device cuda");
    CHECK(output.find("gradients summed over the host (MPI, 2 ranks)") != std::string::npos);
}

TEST_CASE("cuda: NCCL asked for ranks that share a GPU stops with a message saying so") {
    ATTEND_REQUIRE_GPU();
    require_mpi();
    if (!cuda::nccl_compiled()) {
        MESSAGE("SKIPPED: this build has no NCCL");
        return;
    }
    const std::string dir = fresh_run_dir("gpu-shared-nccl");
    const Run r = run("ATTEND_GPU_GRADIENT_SUM=nccl " + mpirun(2) + attend_binary() + gpu_train_args(dir, 5));
    INFO(r.output);
    CHECK(r.status != 0);
    CHECK(r.output.find("ranks share a GPU, which NCCL refuses") != std::string::npos);
    CHECK(list_checkpoints(dir).empty());
}

TEST_CASE("cuda: attend train --precision tf32 / bf16 says so and follows the FP32 run's losses") {
    ATTEND_REQUIRE_GPU();
    const std::string fp32 = fresh_run_dir("gpu-fp32"), tf32 = fresh_run_dir("gpu-tf32"), bf16 = fresh_run_dir("gpu-bf16");
    run_ok(attend_binary() + gpu_train_args(fp32, 10));
    std::string output = run_ok(attend_binary() + gpu_train_args(tf32, 10) + " --precision tf32");
    CHECK(output.find("TF32 GEMMs") != std::string::npos);
    // TF32 rounds the GEMMs' inputs to 10-bit mantissas (about 1e-3 relative per product); over 10 steps of a small
    // model the losses stay within 1e-2 of FP32's, far from the step-to-step change of the loss early in training.
    check_same_losses(step_losses(tf32), step_losses(fp32), 1e-2);
    output = run_ok(attend_binary() + gpu_train_args(bf16, 10) + " --precision bf16");
    CHECK(output.find("BF16 GEMMs (FP32 weights)") != std::string::npos);
    // BF16 keeps 8 significant bits, 8x TF32's rounding (2^-8 against 2^-11 per input): the same argument with the
    // bound scaled from 1e-2 to 3e-2, still below the loss's early step-to-step change.
    check_same_losses(step_losses(bf16), step_losses(fp32), 3e-2);
    // As with the device, the resuming call's choice counts: resumed without --precision, the run goes on in FP32.
    const std::string resumed = run_ok(attend_binary() + gpu_train_args(bf16, 12) + " --resume");
    CHECK(resumed.find("BF16") == std::string::npos);
}
