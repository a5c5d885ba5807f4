// How the ranks of a data-parallel run act together (sum gradients, agree, stop), as the training step needs it:
// this process alone (single_process(), all the browser has), or MPI's ranks (native/train/communicator.h: world()).
#pragma once
#include "error.h"

#include <cstddef>
#include <string>
#include <vector>

namespace attend {

// An error every rank of the job raises together (the ranks disagree, rank 0 could not start the run): each rank
// can exit normally, and one message (rank 0's) says why.
class CollectiveError : public Error {
public:
    using Error::Error;
};

class Communicator {
public:
    virtual ~Communicator() = default;
    virtual int rank() const = 0;
    virtual int size() const = 0;
    // In place: every rank ends with the element-wise sum over the ranks (the same bits on every rank).
    virtual void allreduce_sum(float* data, size_t n) = 0;
    virtual void allreduce_sum(double* data, size_t n) = 0;
    // Every rank's string, in rank order.
    virtual std::vector<std::string> allgather(const std::string& text) = 0;
    virtual void barrier() = 0;
    // Ends every rank of the job (a rank that cannot go on must not leave the others waiting in a collective).
    [[noreturn]] virtual void abort(int status) = 0;
    // "single process" or "MPI, N ranks".
    virtual std::string describe() const = 0;
};

// This process alone.
Communicator& single_process();

}  // namespace attend
