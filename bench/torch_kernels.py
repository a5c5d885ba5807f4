#!/usr/bin/python3
"""PyTorch peer of `attend bench kernels`: the same shapes, the same line names (`name value unit`).

Run with Debian's torch: /usr/bin/python3 bench/torch_kernels.py [--min-time SECONDS]
torch 1.13 has no F.scaled_dot_product_attention, so attention is matmul -> softmax -> matmul, and the MHA
figure is nn.MultiheadAttention with a key_padding_mask. Two threads, as the C++ side uses.
"""
import argparse
import time

import torch
import torch.nn.functional as F


def best_seconds(fn, min_time):
    fn()  # warm-up
    best, spent, reps = float("inf"), 0.0, 0
    while spent < min_time or reps < 3:
        start = time.perf_counter()
        fn()
        elapsed = time.perf_counter() - start
        best, spent, reps = min(best, elapsed), spent + elapsed, reps + 1
    return best


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--min-time", type=float, default=1.0, help="seconds spent timing each figure")
    args = parser.parse_args()
    torch.set_num_threads(2)
    torch.manual_seed(0)

    with torch.inference_mode():
        B, H, T, D = 1, 8, 1024, 64
        q, k, v = (torch.randn(B, H, T, D) for _ in range(3))
        scale = D ** -0.5

        def attention():
            return torch.matmul(torch.softmax(torch.matmul(q * scale, k.transpose(-2, -1)), dim=-1), v)

        s = best_seconds(attention, args.min_time)
        print(f"attention_fused_h8_l1024_d64 {4 * B * H * T * T * D / s / 1e9:.1f} GFLOP/s")

        batch, length, C, heads = 64, 32, 256, 8
        mha = torch.nn.MultiheadAttention(C, heads, batch_first=True).eval()
        x = torch.randn(batch, length, C)
        lengths = torch.randint(length // 2, length + 1, (batch,))
        padding = torch.arange(length)[None, :] >= lengths[:, None]
        s = best_seconds(lambda: mha(x, x, x, key_padding_mask=padding, need_weights=False), args.min_time)
        print(f"mha_forward_b64_l32_c256_h8 {s * 1e3:.2f} ms")

        N, C = 4096, 1024
        x = torch.randn(N, C)
        s = best_seconds(lambda: torch.softmax(x, dim=-1), args.min_time)
        print(f"softmax_n4096_c1024 {2 * N * C * 4 / s / 1e9:.1f} GB/s")
        w, b = torch.randn(C), torch.randn(C)
        s = best_seconds(lambda: F.layer_norm(x, (C,), w, b, 1e-5), args.min_time)
        print(f"layernorm_n4096_c1024 {2 * N * C * 4 / s / 1e9:.1f} GB/s")


if __name__ == "__main__":
    main()
