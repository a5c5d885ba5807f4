// What the kernels whose matrix products go through Eigen share: row-major Eigen views of the raw float buffers,
// and the split of rows over OpenMP threads.
#pragma once
#include "kernels/simd.h"  // before Eigen: it silences GCC 12's false AVX-512 warnings in Eigen's GEMM

#include <Eigen/Core>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace attend {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MatrixMap = Eigen::Map<RowMatrix>;
using ConstMatrixMap = Eigen::Map<const RowMatrix>;

struct RowRange {
    int begin = 0, end = 0;
};

// The calling thread's rows [begin, end) of n, inside an OpenMP parallel region (all n outside one): contiguous
// slices in thread order, so which thread writes which row depends only on the thread count.
inline RowRange thread_rows(int n) {
    int threads = 1, thread = 0;
#ifdef _OPENMP
    threads = omp_get_num_threads();
    thread = omp_get_thread_num();
#endif
    return {int(long(n) * thread / threads), int(long(n) * (thread + 1) / threads)};
}

}  // namespace attend
