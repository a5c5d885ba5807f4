// Template definitions of train/communicator.h.
#pragma once
#include "error.h"

namespace attend {

template <class First, class Rest>
void rank0_first(Communicator& comm, First&& first, Rest&& rest) {
    std::string error;
    if (comm.rank() == 0) {
        try {
            first();
        } catch (const Error& e) {
            if (comm.size() == 1) throw;
            error = e.what();
        }
    }
    const std::vector<std::string> errors = comm.allgather(error);
    if (!errors[0].empty()) throw CollectiveError(errors[0]);
    if (comm.rank() != 0) rest();
}

}  // namespace attend
