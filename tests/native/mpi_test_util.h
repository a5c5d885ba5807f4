// What the data-parallel tests share (tests/native/test_train_mpi.cpp on the CPU, tests/cuda/test_train_cli_cuda.cpp
// on a GPU): `attend train` under mpirun as users run it, and comparisons of two runs' losses and parameters.
#pragma once
#include <doctest/doctest.h>

#include "data/data_dir.h"
#include "trainer_test_util.h"
#include "train/checkpoint.h"
#include "train/communicator.h"

#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace attend_test {

using namespace attend;

struct Run {
    int status = -1;
    std::string output;
};

inline Run run(const std::string& command) {
    Run r;
    FILE* pipe = popen((command + " 2>&1").c_str(), "r");
    REQUIRE_MESSAGE(pipe, "cannot run " << command);
    char buffer[4096];
    for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) r.output.append(buffer, n);
    const int status = pclose(pipe);
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
}

inline std::string attend_binary() { return ATTEND_CLI_PATH; }

// mpirun as root needs --allow-run-as-root; --oversubscribe lets 2 ranks start on a 1-core machine.
inline std::string mpirun(int ranks) {
    return "mpirun --allow-run-as-root --oversubscribe --bind-to none -np " + std::to_string(ranks) + " ";
}

// A small Transformer on the first 300 Multi30K pairs, dropout on (the ranks must draw the single process's masks).
inline std::string train_args(const std::string& out, int max_steps) {
    return " train --preset transformer-tiny --max-sentences 300 --layers 1 --dim 32 --heads 2 --ffn 32 --bpe 300"
           " --max-tokens 512 --val-bleu-sentences 20 --log-every 1 --checkpoint-every 5 --threads 1 --data " +
           default_data_dir() + " --max-steps " + std::to_string(max_steps) + " --out " + out;
}

// The largest distance of a tensor of `a` from its `b`, relative to its norm in `b` (worst_name: which tensor), but
// the key projections' biases: their true gradient is zero, so two runs hold only rounding noise there, which Adam
// turns into full-size steps that change no output.
inline double worst_relative_difference(const attend::ParameterStore& a, const attend::ParameterStore& b,
                                        std::string& worst_name) {
    REQUIRE(a.size() == b.size());
    double worst = 0;
    for (const attend::TensorSpec& t : a.specs()) {
        if (t.name.find("k_proj.bias") != std::string::npos) continue;
        double diff = 0, norm = 0;
        for (size_t i = 0; i < t.size; ++i) {
            const double x = a.values()[t.offset + i], y = b.values()[t.offset + i];
            diff += (x - y) * (x - y);
            norm += y * y;
        }
        const double relative = std::sqrt(diff) / std::max(std::sqrt(norm), 1e-30);
        if (relative > worst) worst = relative, worst_name = t.name;
    }
    return worst;
}

// The last checkpoints of two runs: the same step, every tensor within `rtol` (worst_relative_difference).
inline void check_same_parameters(const std::string& dir_a, const std::string& dir_b, double rtol) {
    const Checkpoint a = load_checkpoint(list_checkpoints(dir_a).back());
    const Checkpoint b = load_checkpoint(list_checkpoints(dir_b).back());
    CHECK(a.state.step == b.state.step);
    std::string worst_name;
    const double worst = worst_relative_difference(a.model.parameters(), b.model.parameters(), worst_name);
    MESSAGE("largest relative difference " << worst << " (" << worst_name << ")");
    CHECK(worst <= rtol);
}

inline void check_same_losses(const std::vector<double>& a, const std::vector<double>& b, double rtol) {
    REQUIRE(a.size() == b.size());
    for (size_t i = 0; i < a.size(); ++i) {
        CAPTURE(i);
        CHECK(std::fabs(a[i] - b[i]) <= rtol * std::fabs(b[i]));
    }
}

inline void require_mpi() {
    REQUIRE_MESSAGE(mpi_compiled(), "this build has no MPI: install OpenMPI (scripts/setup.sh) and reconfigure");
    REQUIRE_MESSAGE(run("mpirun --version").status == 0, "mpirun is not on the PATH (scripts/setup.sh installs it)");
}

// Runs `command`, which must succeed; its output (stdout and stderr).
inline std::string run_ok(const std::string& command) {
    const Run r = run(command);
    INFO(command << "\n" << r.output);
    REQUIRE(r.status == 0);
    return r.output;
}

// 20 steps of `attend train <train_args> <extra>` on 2 ranks against the same in one process: the losses (1e-6) and
// parameters (1e-5 of each tensor's norm) agree. Returns the 2-rank run's output.
inline std::string check_two_ranks_train_like_one(const std::string& name, const std::string& extra) {
    const std::string two = fresh_run_dir(name + "-two"), one = fresh_run_dir(name + "-one");
    const std::string output = run_ok(mpirun(2) + attend_binary() + train_args(two, 20) + extra);
    CHECK(output.find("data-parallel over MPI, 2 ranks") != std::string::npos);
    run_ok(attend_binary() + train_args(one, 20) + extra);
    const std::vector<double> l2 = step_losses(two), l1 = step_losses(one);
    REQUIRE(l1.size() == 20);
    check_same_losses(l2, l1, 1e-6);
    check_same_parameters(two, one, 1e-5);
    return output;
}

}  // namespace attend_test
