#include "train/thread_ranks.h"

#include "error.h"

#include <algorithm>
#include <cstring>

namespace attend {

struct ThreadRanks::Group {
    explicit Group(int n) : ranks(n), buffers(size_t(n)), counts(size_t(n)), texts(size_t(n)) {}

    // Every rank waits here until all have arrived. A failed group releases its waiters with the failure instead.
    void barrier() {
        std::unique_lock<std::mutex> lock(mutex);
        if (failed) throw CollectiveError(why);
        const unsigned long long gen = generation;
        if (++arrived == ranks) {
            arrived = 0;
            ++generation;
            cv.notify_all();
            return;
        }
        cv.wait(lock, [&] { return generation != gen || failed; });
        if (generation == gen) throw CollectiveError(why);
    }

    void fail(const std::string& message) {
        {
            std::lock_guard<std::mutex> lock(mutex);
            if (!failed) failed = true, why = message;
        }
        cv.notify_all();
    }

    // After a run, when no rank is inside a collective.
    void reset() {
        std::lock_guard<std::mutex> lock(mutex);
        failed = false;
        why.clear();
        arrived = 0;
    }

    const int ranks;
    std::mutex mutex;
    std::condition_variable cv;
    int arrived = 0;
    unsigned long long generation = 0;
    bool failed = false;
    std::string why;
    // What the ranks publish for one collective: their buffers and lengths, or their strings.
    std::vector<const void*> buffers;
    std::vector<size_t> counts;
    std::vector<std::string> texts;
    std::vector<float> sum_f;
    std::vector<double> sum_d;
};

namespace {

std::vector<float>& sum_buffer(ThreadRanks::Group& g, float*) { return g.sum_f; }
std::vector<double>& sum_buffer(ThreadRanks::Group& g, double*) { return g.sum_d; }

class ThreadRank final : public Communicator {
public:
    ThreadRank(ThreadRanks::Group& group, int rank) : g_(group), rank_(rank) {}
    int rank() const override { return rank_; }
    int size() const override { return g_.ranks; }
    void allreduce_sum(float* data, size_t n) override { reduce(data, n); }
    void allreduce_sum(double* data, size_t n) override { reduce(data, n); }
    std::vector<std::string> allgather(const std::string& text) override {
        if (g_.ranks == 1) return {text};
        g_.texts[size_t(rank_)] = text;
        g_.barrier();
        std::vector<std::string> all = g_.texts;
        g_.barrier();  // nobody overwrites a string another rank is still copying
        return all;
    }
    void barrier() override { g_.barrier(); }
    // The other ranks cannot be ended from here (they are this process's threads, and in a browser there is no
    // process to exit): they are released from their collectives with an error, as this rank is.
    [[noreturn]] void abort(int status) override {
        const std::string why = "rank " + std::to_string(rank_) + " of " + describe() + " stopped the job (status " +
                                std::to_string(status) + ")";
        g_.fail(why);
        throw CollectiveError(why);
    }
    std::string describe() const override { return "threads, " + std::to_string(g_.ranks) + " ranks"; }

private:
    // Three steps between barriers: every rank publishes its buffer; rank r sums elements [n r / R, n (r + 1) / R)
    // of all ranks' buffers, in rank order, into the shared sum; every rank copies the whole sum.
    template <class T>
    void reduce(T* data, size_t n) {
        const int R = g_.ranks;
        if (R == 1) return;
        std::vector<T>& sum = sum_buffer(g_, data);
        g_.buffers[size_t(rank_)] = data;
        g_.counts[size_t(rank_)] = n;
        if (rank_ == 0 && sum.size() < n) sum.resize(n);  // the last collective's readers are past its barrier
        g_.barrier();
        for (int r = 1; r < R; ++r)
            if (g_.counts[size_t(r)] != g_.counts[0])
                throw CollectiveError("allreduce_sum: rank " + std::to_string(r) + " sums " +
                                      std::to_string(g_.counts[size_t(r)]) + " values, rank 0 " +
                                      std::to_string(g_.counts[0]));
        const size_t begin = n * size_t(rank_) / size_t(R), end = n * size_t(rank_ + 1) / size_t(R);
        T* out = sum.data();
        std::memcpy(out + begin, static_cast<const T*>(g_.buffers[0]) + begin, (end - begin) * sizeof(T));
        for (int r = 1; r < R; ++r) {
            const T* in = static_cast<const T*>(g_.buffers[size_t(r)]);
            for (size_t i = begin; i < end; ++i) out[i] += in[i];
        }
        g_.barrier();
        std::memcpy(data, out, n * sizeof(T));
        g_.barrier();  // nobody reuses the sum while another rank still copies it
    }

    ThreadRanks::Group& g_;
    const int rank_;
};

std::string what_of(const std::exception_ptr& e) {
    try {
        std::rethrow_exception(e);
    } catch (const std::exception& x) {
        return x.what();
    } catch (...) {
        return "an unknown exception";
    }
}

bool is_collective(const std::exception_ptr& e) {
    try {
        std::rethrow_exception(e);
    } catch (const CollectiveError&) {
        return true;
    } catch (...) {
        return false;
    }
}

}  // namespace

ThreadRanks::ThreadRanks(int ranks) {
    if (ranks < 1) throw Error("thread ranks: the rank count must be at least 1, got " + std::to_string(ranks));
    group_ = std::make_unique<Group>(ranks);
    for (int r = 0; r < ranks; ++r) ranks_.push_back(std::make_unique<ThreadRank>(*group_, r));
    errors_.resize(size_t(ranks));
    threads_.reserve(size_t(ranks - 1));
    for (int r = 1; r < ranks; ++r) threads_.emplace_back(&ThreadRanks::worker, this, r);
}

ThreadRanks::~ThreadRanks() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : threads_) t.join();
}

Communicator& ThreadRanks::rank(int r) {
    if (r < 0 || r >= size())
        throw Error("thread ranks: no rank " + std::to_string(r) + " among " + std::to_string(size()));
    return *ranks_[size_t(r)];
}

void ThreadRanks::worker(int r) {
    unsigned long long seen = 0;
    for (;;) {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || job_ != seen; });
        if (stop_) return;
        seen = job_;
        const std::function<void(int)>* task = task_;
        lock.unlock();
        std::exception_ptr error;
        try {
            (*task)(r);
        } catch (...) {
            error = std::current_exception();
            group_->fail("rank " + std::to_string(r) + " failed: " + what_of(error));
        }
        lock.lock();
        errors_[size_t(r)] = error;
        if (--running_ == 0) done_.notify_all();
    }
}

void ThreadRanks::run(const std::function<void(int)>& task) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        task_ = &task;
        running_ = size();
        std::fill(errors_.begin(), errors_.end(), nullptr);
        ++job_;
    }
    wake_.notify_all();
    std::exception_ptr error;
    try {
        task(0);
    } catch (...) {
        error = std::current_exception();
        group_->fail("rank 0 failed: " + what_of(error));
    }
    std::vector<std::exception_ptr> errors;
    {
        std::unique_lock<std::mutex> lock(mutex_);
        errors_[0] = error;
        if (--running_ > 0) done_.wait(lock, [&] { return running_ == 0; });
        task_ = nullptr;
        errors = errors_;
    }
    group_->reset();
    for (const std::exception_ptr& e : errors)
        if (e && !is_collective(e)) std::rethrow_exception(e);
    for (const std::exception_ptr& e : errors)
        if (e) std::rethrow_exception(e);
}

}  // namespace attend
