// The process group of data-parallel training: `mpirun -np N attend train ...` (or `srun`) runs N ranks, each on a
// disjoint share of every global batch; gradients are summed with one MPI_Allreduce over the flat gradient buffer,
// so every rank applies the same Adam update. Without MPI (not compiled in, or not started by a launcher) the
// group is this process alone and every collective is a no-op.
#pragma once
#include "train/collective.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace attend {

// True when this build has MPI (CMake found it).
bool mpi_compiled();


// The job this process was started in: MPI_COMM_WORLD when a launcher (mpirun, mpiexec, srun) started it and MPI is
// compiled in (MPI is initialised on the first call and finalised at exit), else single_process().
Communicator& world();

// This process's place among the job's ranks on its machine (the launcher's OMPI_COMM_WORLD_LOCAL_RANK,
// SLURM_LOCALID or MPI_LOCALRANKID): which of the machine's GPUs a rank takes. 0 outside a job.
int local_rank();

// A one-rank MPI communicator of this process (MPI_COMM_SELF), for comparing a run with the job's inside one MPI
// job. Null without MPI.
std::unique_ptr<Communicator> mpi_self();

// Throws CollectiveError on every rank when the ranks' `what` differ, naming the first rank that differs from rank 0
// and `subject` ("the training options", ...).
void require_same_on_all_ranks(Communicator& comm, const std::string& subject, const std::string& what);

// Runs `first` on rank 0, then `rest` on the other ranks (which may read what rank 0 wrote). An error on rank 0
// becomes the same CollectiveError on every rank instead of leaving them waiting.
template <class First, class Rest>
void rank0_first(Communicator& comm, First&& first, Rest&& rest);

}  // namespace attend

#include "train/communicator_impl.h"
