// Data-parallel training over MPI, run as users run it: `mpirun -np 2 attend train ...` (OpenMPI, both ranks on this
// machine, --oversubscribe so that 2 ranks start on any core count), against `attend train` in one process.
//
// Tolerances: the ranks sum their gradients with MPI_Allreduce, one process sums the same terms in one GEMM, so the
// two differ by float rounding (about 1e-7 of a gradient) and every step's loss agrees to 1e-6. Adam divides each
// gradient by its running RMS, which keeps those differences relative: each tensor after 20 steps agrees to 1e-5 of
// its norm. The exception is the key projections' bias, whose true gradient is zero (softmax ignores a shift shared
// by all keys): both runs hold only rounding noise there, which Adam turns into steps of full size in a direction
// that depends on the noise, and which changes no output. It is checked to change no loss instead.
#include <doctest/doctest.h>

#include "mpi_test_util.h"
#include "data/text_file.h"

#include <filesystem>

#include <string>
#include <vector>

using namespace attend;
using namespace attend_test;

TEST_CASE("mpi: 2 ranks train what 1 process trains on the whole batch (losses, parameters, dropout masks)") {
    require_mpi();
    check_two_ranks_train_like_one("mpi", "");
}

TEST_CASE("mpi: a 2-rank run resumed on 1 rank ends where the uninterrupted 2-rank run ends") {
    require_mpi();
    const std::string whole = fresh_run_dir("mpi-whole"), split = fresh_run_dir("mpi-split");
    REQUIRE(run(mpirun(2) + attend_binary() + train_args(whole, 20)).status == 0);
    const Run first = run(mpirun(2) + attend_binary() + train_args(split, 10));
    INFO(first.output);
    REQUIRE(first.status == 0);
    const Run rest = run(attend_binary() + train_args(split, 20) + " --resume");
    INFO(rest.output);
    REQUIRE(rest.status == 0);
    check_same_losses(step_losses(split), step_losses(whole), 1e-6);
    check_same_parameters(split, whole, 1e-5);
}

TEST_CASE("mpi: ranks that would train different things stop before the first step, with one message") {
    require_mpi();
    const std::string dir = fresh_run_dir("mpi-disagree");
    // MPMD: rank 1 is started with another learning rate.
    const Run r = run("mpirun --allow-run-as-root --oversubscribe --bind-to none -np 1 " + attend_binary() +
                      train_args(dir, 5) + " : -np 1 " + attend_binary() + train_args(dir, 5) + " --lr 0.002");
    INFO(r.output);
    CHECK(r.status != 0);
    const std::string message = "rank 1 has other training options or resume point than rank 0";
    const size_t at = r.output.find(message);
    REQUIRE(at != std::string::npos);
    CHECK(r.output.find(message, at + 1) == std::string::npos);  // said once, by rank 0
    CHECK(list_checkpoints(dir).empty());                         // no step was taken
}

TEST_CASE("mpi: a rank that dies ends the job with a message naming it; the last checkpoint loads and resumes") {
    require_mpi();
    const std::string dir = fresh_run_dir("mpi-killed");
    const Run r = run("ATTEND_TEST_KILL_RANK_AT_STEP=1:7 " + mpirun(2) + attend_binary() + train_args(dir, 20));
    INFO(r.output);
    CHECK(r.status != 0);
    CHECK(r.output.find("rank 1") != std::string::npos);
    const std::vector<std::string> saved = list_checkpoints(dir);
    REQUIRE_FALSE(saved.empty());
    const Checkpoint last = load_checkpoint(saved.back());
    CHECK(last.state.step == 5);  // --checkpoint-every 5; step 7 never completed on every rank
    const Run resumed = run(mpirun(2) + attend_binary() + train_args(dir, 10) + " --resume");
    INFO(resumed.output);
    CHECK(resumed.status == 0);
    CHECK(load_checkpoint(list_checkpoints(dir).back()).state.step == 10);
}

TEST_CASE("mpi: a corpus of files: rank 0 learns the subword model, every rank reads the text with it") {
    require_mpi();
    const std::string dir = fresh_run_dir("mpi-files");
    std::filesystem::create_directories(dir);
    std::vector<std::string> lines = read_lines(default_data_dir() + "/tatoeba/eng-cmn.tsv.gz");
    lines.resize(2000);
    write_lines(dir + "/pairs.tsv", lines);
    const std::string args = " train --source en --target zh --train " + dir +
                             "/pairs.tsv --valid-size 100 --vocab-size 1500 --character-coverage 0.99 --max-steps 4 "
                             "--dim 32 --layers 1 --heads 2 --ffn 32 --max-tokens 800 --out " + dir + "/run";
    const Run r = run(mpirun(2) + attend_binary() + args);
    INFO(r.output);
    REQUIRE(r.status == 0);
    // The ranks compared their subword models before the first step (a difference stops the run naming the rank).
    CHECK(r.output.find("the subword model") == std::string::npos);
    CHECK(list_checkpoints(dir + "/run").size() == 1);
    std::filesystem::remove_all(dir);
}
