// Data-parallel ranks that are threads of this one process: what the browser's Web Workers (a pthreads build of the
// training module) and a native process without MPI can use to train on several cores as `mpirun -np N` trains on
// several processes. Each rank holds its own replica of the model and trains on its share of every batch; the ranks'
// gradients are summed over shared memory.
//
// The sum is in a fixed order, rank 0 + rank 1 + ... for every element whichever thread adds it, so every rank ends
// with the same bits and the result does not depend on thread timing. With two ranks it is also MPI_Allreduce's sum
// (a + b == b + a), so two thread ranks train what two MPI ranks train, bit for bit.
//
//   ThreadRanks ranks(2);                         // starts one thread (rank 0 is the caller's)
//   ranks.run([&](int r) { sessions[r]->step(); });   // each session built on ranks.rank(r)
#pragma once
#include "train/collective.h"

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace attend {

class ThreadRanks {
public:
    // ranks >= 1; starts ranks - 1 threads, which wait for run() until the group is destroyed.
    explicit ThreadRanks(int ranks);
    ~ThreadRanks();
    ThreadRanks(const ThreadRanks&) = delete;
    ThreadRanks& operator=(const ThreadRanks&) = delete;

    int size() const { return static_cast<int>(ranks_.size()); }
    // Rank r's communicator: its collectives must be called by the thread running rank r's task, in the same order
    // on every rank.
    Communicator& rank(int r);

    // Runs task(r) on every rank at once, rank 0 on the calling thread, and returns when all have returned. A rank
    // that throws releases the ranks waiting for it in a collective (they throw CollectiveError); run() then
    // rethrows the first rank's own error (a CollectiveError only where no rank had another). One run at a time.
    void run(const std::function<void(int)>& task);

    // Shared between the ranks' communicators (train/thread_ranks.cpp).
    struct Group;

private:
    void worker(int r);

    std::unique_ptr<Group> group_;
    std::vector<std::unique_ptr<Communicator>> ranks_;
    std::vector<std::thread> threads_;
    std::mutex mutex_;
    std::condition_variable wake_, done_;
    const std::function<void(int)>* task_ = nullptr;
    unsigned long long job_ = 0;  // counts run() calls; a worker runs each job once
    int running_ = 0;             // ranks of the current job that have not returned
    bool stop_ = false;
    std::vector<std::exception_ptr> errors_;
};

}  // namespace attend
