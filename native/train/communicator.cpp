#include "train/communicator.h"

#include "error.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#ifdef ATTEND_HAVE_MPI
#include <mpi.h>
#endif

namespace attend {

namespace {


// Started by a launcher: OpenMPI's mpirun, MPICH/Hydra or Slurm's PMI/PMIx.
bool launched_by_mpi() {
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"})
        if (const char* v = std::getenv(name); v && *v) return true;
    return false;
}

#ifdef ATTEND_HAVE_MPI
void check_mpi(int rc, const char* call) {
    if (rc == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(rc, text, &length);
    throw Error(std::string(call) + " failed: " + std::string(text, size_t(length)));
}

class Mpi final : public Communicator {
public:
    explicit Mpi(MPI_Comm comm) : comm_(comm) {
        check_mpi(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
        check_mpi(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
    }
    int rank() const override { return rank_; }
    int size() const override { return size_; }
    // Chunks of at most 2^30 elements: MPI counts are ints.
    void allreduce_sum(float* data, size_t n) override { reduce(data, n, MPI_FLOAT); }
    void allreduce_sum(double* data, size_t n) override { reduce(data, n, MPI_DOUBLE); }
    std::vector<std::string> allgather(const std::string& text) override {
        int length = static_cast<int>(text.size());
        std::vector<int> lengths(static_cast<size_t>(size_)), offsets(static_cast<size_t>(size_));
        check_mpi(MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm_), "MPI_Allgather");
        int total = 0;
        for (int r = 0; r < size_; ++r) offsets[size_t(r)] = total, total += lengths[size_t(r)];
        std::string all(size_t(total), '\0');
        check_mpi(MPI_Allgatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
                                 comm_),
                  "MPI_Allgatherv");
        std::vector<std::string> out;
        for (int r = 0; r < size_; ++r) out.push_back(all.substr(size_t(offsets[size_t(r)]), size_t(lengths[size_t(r)])));
        return out;
    }
    void barrier() override { check_mpi(MPI_Barrier(comm_), "MPI_Barrier"); }
    [[noreturn]] void abort(int status) override {
        MPI_Abort(comm_, status);
        std::exit(status);
    }
    std::string describe() const override { return "MPI, " + std::to_string(size_) + " ranks"; }

private:
    void reduce(void* data, size_t n, MPI_Datatype type) {
        const size_t element = type == MPI_FLOAT ? sizeof(float) : sizeof(double);
        for (size_t done = 0; done < n;) {
            const int count = static_cast<int>(std::min<size_t>(n - done, size_t(1) << 30));
            check_mpi(MPI_Allreduce(MPI_IN_PLACE, static_cast<char*>(data) + done * element, count, type, MPI_SUM, comm_),
                      "MPI_Allreduce");
            done += size_t(count);
        }
    }
    MPI_Comm comm_;
    int rank_ = 0, size_ = 1;
};

void finalize_mpi() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
}

bool init_mpi() {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) {
        int provided = 0;
        // OpenMP threads compute inside a rank; only the main thread calls MPI.
        check_mpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
        std::atexit(finalize_mpi);
    }
    return true;
}
#endif

}  // namespace

bool mpi_compiled() {
#ifdef ATTEND_HAVE_MPI
    return true;
#else
    return false;
#endif
}


Communicator& world() {
#ifdef ATTEND_HAVE_MPI
    if (launched_by_mpi()) {
        static const bool ready = init_mpi();
        (void)ready;
        static Mpi all(MPI_COMM_WORLD);
        return all;
    }
#endif
    return single_process();
}

int local_rank() {
    for (const char* name : {"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "MPI_LOCALRANKID"})
        if (const char* v = std::getenv(name); v && *v) return std::max(0, std::atoi(v));
    return 0;
}

std::unique_ptr<Communicator> mpi_self() {
#ifdef ATTEND_HAVE_MPI
    world();
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (initialized) return std::make_unique<Mpi>(MPI_COMM_SELF);
#endif
    return nullptr;
}

void require_same_on_all_ranks(Communicator& comm, const std::string& subject, const std::string& what) {
    if (comm.size() == 1) return;
    const std::vector<std::string> all = comm.allgather(what);
    for (int r = 1; r < comm.size(); ++r)
        if (all[size_t(r)] != all[0])
            throw CollectiveError("rank " + std::to_string(r) + " has other " + subject + " than rank 0 (every rank of `mpirun -np " +
                        std::to_string(comm.size()) + " attend train` must run the same binary on the same data with the "
                        "same options)");
}

}  // namespace attend
