// CUDA mirrors of split_heads / merge_heads (core/model/multi_head_attention.h): [B,T,H*D] <-> [B,H,T,D];
// row_stride (0 = H*D) is the distance between rows of the [B,T,...] side (a head group inside a fused q|k|v row).
// Device pointers.
#pragma once

namespace attend::cuda {

void split_heads_cuda(float* out /*[B,H,T,D]*/, const float* x /*[B,T,row_stride]*/, int B, int T, int H, int D,
                      int row_stride = 0);
void merge_heads_cuda(float* out /*[B,T,row_stride]*/, const float* x /*[B,H,T,D]*/, int B, int T, int H, int D,
                      int row_stride = 0);

}  // namespace attend::cuda
