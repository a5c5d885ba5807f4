// CUDA mirrors of core/kernels/embedding.h, core/kernels/positional_encoding.h and
// core/train/embedding_backward.h. All pointers are device pointers.
#pragma once
#include <cstddef>

namespace attend::cuda {

// CPU: embedding_forward. out [N,C] = scale * table[ids[n]]; ids [N]; table [V,C].
// The CPU kernel throws on an id outside [0, V); a kernel cannot, so such a row is filled with NaN (the loss then
// says so). Validate ids on the host before uploading them (they come from the host anyway).
void embedding_forward_cuda(float* out, const int* ids, const float* table, float scale, int N, int C, int V);

// CPU: positional_encoding_add. x [B,T,C] in place: x[b,t,:] += P[t0 + t, :], P computed on the device with the
// same float formula (inv_freq as the CPU's; CUDA's sinf/cosf agree with glibc's to a few 1e-7).
void positional_encoding_add_cuda(float* x, int B, int T, int C, int t0 = 0);

// CPU: embedding_backward. dtable [V,C] += scale * dout[n] for every n with ids[n] != padding_idx; dout [N,C].
// Deterministic: the ids are sorted (CUB's stable radix sort) and each row adds its positions in ascending order, as
// the CPU does, so a run repeats bit for bit (no atomics). Out-of-range ids are skipped.
// scratch: device memory of at least embedding_backward_scratch_bytes(N) bytes, 256-byte aligned; too little throws
// attend::Error.
size_t embedding_backward_scratch_bytes(int N);
void embedding_backward_cuda(float* dtable, const float* dout, const int* ids, float scale, int padding_idx, int N,
                             int C, int V, void* scratch, size_t scratch_bytes);

}  // namespace attend::cuda
