// Data-parallel ranks that are threads of one process (train/thread_ranks.h): the collectives, and training on
// them against one process on the whole batch and against the same number of MPI ranks.
//
// Tolerances: the standard of tests/native/test_train_mpi.cpp. The ranks' gradients are summed after each rank's
// GEMMs over its own rows, one process sums the same terms inside one GEMM, so the two differ by float rounding:
// every step's loss agrees to 1e-6, each tensor to 1e-5 of its norm (Adam divides by the gradient's running RMS,
// which keeps the differences relative). Two thread ranks add the same two terms as MPI_Allreduce on two ranks
// (a + b == b + a), so against MPI they agree bit for bit.
//
// Dropout is on in both comparisons: every rank draws, for its rows, the masks one process draws for them (the
// Transformer's batch-first tensors through DropoutStream::set_rows, the GRU encoder's time-major ones through
// next_time_major).
//
// Every process installs the native GEMM backend (OpenBLAS) as `attend train` does, so that the products are the
// MPI run's.
#include <doctest/doctest.h>

#include "mpi_test_util.h"
#include "trainer_test_util.h"
#include "train/native_gemm.h"
#include "train/presets.h"
#include "train/thread_ranks.h"
#include "train/training_session.h"
#include "train/translation_corpus.h"

#include <omp.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace attend;

namespace {

bool same_bits(const ParameterStore& a, const ParameterStore& b) {
    return a.size() == b.size() && std::memcmp(a.values(), b.values(), a.size() * sizeof(float)) == 0;
}

// `ranks` sessions of `o`, one per thread rank, each computing with one OpenMP thread (as `attend train --threads 1`
// under mpirun does), trained `steps` steps; rank 0's losses. The replicas must hold the same bits after each step.
std::vector<double> train_on_thread_ranks(const TrainOptions& o, const TranslationCorpus& corpus, int ranks,
                                          int steps, std::unique_ptr<TrainingSession>& rank0) {
    ThreadRanks group(ranks);
    std::vector<std::unique_ptr<TrainingSession>> sessions;
    for (int r = 0; r < ranks; ++r) sessions.push_back(std::make_unique<TrainingSession>(o, corpus, group.rank(r)));
    std::vector<double> losses;
    for (int i = 0; i < steps; ++i) {
        std::vector<SessionStep> records(size_t(ranks), SessionStep{});
        group.run([&](int r) {
            omp_set_num_threads(1);
            records[size_t(r)] = sessions[size_t(r)]->step();
        });
        for (int r = 1; r < ranks; ++r) {
            CHECK(records[size_t(r)].loss.mean == records[0].loss.mean);
            CHECK(same_bits(sessions[size_t(r)]->model().parameters(), sessions[0]->model().parameters()));
        }
        losses.push_back(records[0].loss.mean);
    }
    rank0 = std::move(sessions[0]);
    return losses;
}

}  // namespace

TEST_CASE("thread ranks: allreduce_sum gives every rank the rank-order sum, whatever the threads' timing") {
    for (int ranks : {1, 2, 3, 4}) {
        CAPTURE(ranks);
        ThreadRanks group(ranks);
        const size_t n = 1001;  // not a multiple of the rank count: the slices differ in length
        // Terms whose sum depends on the order of addition.
        std::vector<std::vector<float>> inputs(static_cast<size_t>(ranks), std::vector<float>(n));
        std::mt19937 gen(7);
        std::uniform_real_distribution<float> u(-1, 1);
        for (auto& v : inputs)
            for (float& x : v) x = u(gen) * std::pow(10.0f, float(gen() % 8));
        std::vector<float> expected(n);
        for (size_t i = 0; i < n; ++i) {
            float s = inputs[0][i];
            for (int r = 1; r < ranks; ++r) s += inputs[size_t(r)][i];
            expected[i] = s;
        }
        for (int round = 0; round < 20; ++round) {
            std::vector<std::vector<float>> data = inputs;
            std::vector<std::vector<double>> loss(size_t(ranks), std::vector<double>{0.5});
            group.run([&](int r) {
                // Ranks arrive in a different order each round.
                std::this_thread::sleep_for(std::chrono::microseconds(((r + round) % ranks) * 300));
                Communicator& c = group.rank(r);
                CHECK(c.rank() == r);
                CHECK(c.size() == ranks);
                c.allreduce_sum(data[size_t(r)].data(), n);
                c.allreduce_sum(loss[size_t(r)].data(), 1);
            });
            for (int r = 0; r < ranks; ++r) {
                CHECK(std::memcmp(data[size_t(r)].data(), expected.data(), n * sizeof(float)) == 0);
                CHECK(loss[size_t(r)][0] == 0.5 * ranks);
            }
        }
    }
}

TEST_CASE("thread ranks: allgather in rank order, barrier, describe") {
    ThreadRanks group(3);
    std::vector<std::vector<std::string>> got(3);
    std::atomic<int> before{0};
    std::vector<int> seen_before(3);
    group.run([&](int r) {
        Communicator& c = group.rank(r);
        got[size_t(r)] = c.allgather("rank " + std::to_string(r));
        before++;
        c.barrier();
        seen_before[size_t(r)] = before.load();
    });
    for (int r = 0; r < 3; ++r) {
        CHECK(got[size_t(r)] == std::vector<std::string>{"rank 0", "rank 1", "rank 2"});
        CHECK(seen_before[size_t(r)] == 3);  // nobody passed the barrier before every rank reached it
    }
    CHECK(group.rank(1).describe() == "threads, 3 ranks");
    CHECK_THROWS_WITH_AS(group.rank(3), "thread ranks: no rank 3 among 3", Error);
    CHECK_THROWS_WITH_AS(ThreadRanks(0), "thread ranks: the rank count must be at least 1, got 0", Error);
}

TEST_CASE("thread ranks: a rank that fails releases the ranks waiting for it, and the group works afterwards") {
    ThreadRanks group(2);
    std::vector<float> a(10, 1.0f), b(10, 2.0f);
    std::vector<bool> released(2, false);
    // Rank 1 throws before its allreduce; rank 0 waits in it and is released with a CollectiveError naming rank 1.
    std::string rank0_error;
    CHECK_THROWS_WITH_AS(group.run([&](int r) {
        if (r == 1) throw std::runtime_error("out of memory in the forward pass");
        try {
            group.rank(0).allreduce_sum(a.data(), a.size());
        } catch (const CollectiveError& e) {
            rank0_error = e.what();
            throw;
        }
    }), "out of memory in the forward pass", std::runtime_error);
    CHECK(rank0_error == "rank 1 failed: out of memory in the forward pass");

    // Ranks that sum different lengths are told so, all of them.
    int refused = 0;
    std::mutex m;
    CHECK_THROWS_AS(group.run([&](int r) {
        try {
            group.rank(r).allreduce_sum(r == 0 ? a.data() : b.data(), r == 0 ? 10 : 9);
        } catch (const CollectiveError& e) {
            std::lock_guard<std::mutex> lock(m);
            CHECK(std::string(e.what()) == "allreduce_sum: rank 1 sums 9 values, rank 0 10");
            refused++;
            throw;
        }
    }), CollectiveError);
    CHECK(refused == 2);

    // abort releases the others too.
    CHECK_THROWS_AS(group.run([&](int r) {
        if (r == 0) group.rank(0).abort(3);
        group.rank(1).barrier();
    }), CollectiveError);

    group.run([&](int r) { group.rank(r).allreduce_sum(r == 0 ? a.data() : b.data(), 10); });
    CHECK(a == std::vector<float>(10, 3.0f));
    CHECK(b == std::vector<float>(10, 3.0f));
}

TEST_CASE("thread ranks: 2 threads train what 1 process trains on the whole batch: the seeds' GRU + Bahdanau") {
    use_native_gemm();
    TrainOptions o = train_preset("bahdanau-d2l");
    REQUIRE(o.rnn.dropout > 0);  // the preset's dropout, between the encoder's layers and in the decoder
    const TranslationCorpus corpus = prepare_corpus(o.corpus);
    const int steps = 12;  // 600 pairs in batches of 64: into the second epoch
    std::unique_ptr<TrainingSession> threaded;
    const std::vector<double> two = train_on_thread_ranks(o, corpus, 2, steps, threaded);
    TrainingSession one(o, corpus);
    omp_set_num_threads(1);
    for (int i = 0; i < steps; ++i) {
        CAPTURE(i);
        const double loss = one.step().loss.mean;
        CHECK(std::fabs(two[size_t(i)] - loss) <= 1e-6 * std::fabs(loss));
    }
    CHECK(threaded->epoch_loss() == doctest::Approx(one.epoch_loss()).epsilon(1e-6));
    std::string name;
    const double worst =
        attend_test::worst_relative_difference(threaded->model().parameters(), one.model().parameters(), name);
    MESSAGE("largest relative difference " << worst << " (" << name << ")");
    CHECK(worst <= 1e-5);
}

TEST_CASE("thread ranks: a threaded training session trains what 1 process trains: a small Transformer, dropout on") {
    use_native_gemm();
    TrainOptions o = attend_test::small_transformer_run("", 1000);
    o.corpus.max_train_sentences = 120;
    o.epochs = 3;
    const TranslationCorpus corpus = prepare_corpus(o.corpus);
    const int steps = 10;
    ThreadedTrainingSession threaded(o, corpus, std::make_shared<ThreadRanks>(2));
    CHECK(threaded.threads() == 2);
    TrainingSession one(o, corpus);
    for (int i = 0; i < steps; ++i) {
        CAPTURE(i);
        const SessionStep a = threaded.step(), b = one.step();
        CHECK(a.step == b.step);
        CHECK(a.epoch == b.epoch);
        CHECK(a.batch == b.batch);
        CHECK(a.loss.tokens == b.loss.tokens);
        CHECK(std::fabs(a.loss.mean - b.loss.mean) <= 1e-6 * std::fabs(b.loss.mean));
    }
    std::string name;
    const double worst =
        attend_test::worst_relative_difference(threaded.session().model().parameters(), one.model().parameters(),
                                               name);
    MESSAGE("largest relative difference " << worst << " (" << name << ")");
    CHECK(worst <= 1e-5);
    CHECK(threaded.session().validation_loss() == doctest::Approx(one.validation_loss()).epsilon(1e-5));

    // One rank: the session itself, bit for bit.
    ThreadedTrainingSession single(o, corpus, std::make_shared<ThreadRanks>(1));
    TrainingSession plain(o, corpus);
    CHECK(single.threads() == 1);
    for (int i = 0; i < 3; ++i) CHECK(single.step().loss.mean == plain.step().loss.mean);
    CHECK(same_bits(single.session().model().parameters(), plain.model().parameters()));
}

TEST_CASE("thread ranks: a loss that is not finite stops every rank together; replicas left apart stop the session") {
    TrainOptions o = train_preset("bahdanau-d2l");
    const TranslationCorpus corpus = prepare_corpus(o.corpus);
    {
        // Every rank takes the first step's NaN update: the ranks stop together on the second step's loss, with the
        // same parameters, and may be asked again.
        o.lr = std::numeric_limits<float>::quiet_NaN();
        ThreadedTrainingSession threaded(o, corpus, std::make_shared<ThreadRanks>(2));
        threaded.step();
        CHECK_THROWS_WITH_AS(threaded.step(), "the training loss became NaN at step 2: lower the learning rate or "
                                              "raise the warmup", Error);
        CHECK(threaded.session().steps() == 1);
        CHECK_THROWS_WITH_AS(threaded.step(), doctest::Contains("the training loss became NaN at step 2"), Error);
    }
    {
        // Only rank 0's replica is broken: both ranks stop on the summed NaN loss, but their parameters differ, so
        // the session refuses to go on.
        o.lr = 0.005f;
        ThreadedTrainingSession threaded(o, corpus, std::make_shared<ThreadRanks>(2));
        ParameterStore& params = threaded.session().model().parameters();
        std::fill_n(params.values(), params.size(), std::numeric_limits<float>::quiet_NaN());
        CHECK_THROWS_WITH_AS(threaded.step(), doctest::Contains("the training loss became NaN at step 1"), Error);
        CHECK_THROWS_WITH_AS(threaded.step(), doctest::Contains("this threaded training stopped earlier: the training "
                                                                "loss became NaN at step 1"), Error);
    }
}

TEST_CASE("mpi: 2 thread ranks train what 2 MPI ranks train, bit for bit (the same sum order)") {
    attend_test::require_mpi();
    use_native_gemm();
    const std::string dir = attend_test::fresh_run_dir("thread-ranks-mpi");
    const int steps = 12;
    attend_test::run_ok(attend_test::mpirun(2) + attend_test::attend_binary() +
                        " train --preset bahdanau-d2l --log-every 1 --threads 1 --max-steps " + std::to_string(steps) +
                        " --data " + default_data_dir() + " --out " + dir);
    const std::vector<double> mpi = attend_test::step_losses(dir);
    const Checkpoint saved = load_checkpoint(list_checkpoints(dir).back());
    REQUIRE(saved.state.step == steps);

    const TrainOptions o = train_preset("bahdanau-d2l");
    std::unique_ptr<TrainingSession> threaded;
    const std::vector<double> two = train_on_thread_ranks(o, prepare_corpus(o.corpus), 2, steps, threaded);
    REQUIRE(mpi.size() == two.size());
    for (size_t i = 0; i < two.size(); ++i) {
        CAPTURE(i);
        CHECK(two[i] == mpi[i]);
    }
    CHECK(same_bits(threaded->model().parameters(), saved.model.parameters()));
    std::filesystem::remove_all(dir);
}
