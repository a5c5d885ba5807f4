#!/usr/bin/python3
"""PyTorch peer of `attend bench train`: one training step = forward + backward + Adam on the same model.

Run with Debian's torch: /usr/bin/python3 bench/torch_train.py [--steps N] [--dropout P] ...
Model: embedding * sqrt(C) + sinusoidal positional encoding + nn.Transformer (post-LN, batch_first) + output
Linear, mean cross entropy; Adam (lr 1e-3). Two threads, as the C++ side uses. --device cuda runs on the GPU;
--precision tf32 allows TF32 matmuls, bf16 runs the forward and loss under torch.autocast(bfloat16). Prints
`torch_train_tokens_per_s <value> tokens/s` where tokens are TARGET tokens (batch * target length) per second,
best step of the timed ones (the machine is shared; other processes only ever add time).
"""
import argparse
import math
import time

import torch
from torch import nn


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--model-dim", type=int, default=256)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--layers", type=int, default=3)
    p.add_argument("--ffn", type=int, default=1024)
    p.add_argument("--vocab", type=int, default=8000)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--length", type=int, default=20)
    p.add_argument("--dropout", type=float, default=0.1)
    p.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    p.add_argument("--precision", default="fp32", choices=["fp32", "tf32", "bf16"],
                   help="cuda: fp32, TF32 matmuls, or bf16 autocast")
    a = p.parse_args()
    dev = torch.device(a.device)
    torch.backends.cuda.matmul.allow_tf32 = a.precision == "tf32"
    torch.backends.cudnn.allow_tf32 = a.precision == "tf32"
    torch.set_num_threads(2)
    torch.manual_seed(0)
    C, V, B, L = a.model_dim, a.vocab, a.batch, a.length
    src_emb, tgt_emb = nn.Embedding(V, C), nn.Embedding(V, C)
    transformer = nn.Transformer(d_model=C, nhead=a.heads, num_encoder_layers=a.layers, num_decoder_layers=a.layers,
                                 dim_feedforward=a.ffn, dropout=a.dropout, batch_first=True)
    output = nn.Linear(C, V)
    drop = nn.Dropout(a.dropout)
    modules = nn.ModuleList([src_emb, tgt_emb, transformer, output]).to(dev)
    opt = torch.optim.Adam(modules.parameters(), lr=1e-3)
    P = torch.zeros(1, L, C)
    X = torch.arange(L, dtype=torch.float32).reshape(-1, 1) / torch.pow(10000, torch.arange(0, C, 2) / C)
    P[:, :, 0::2], P[:, :, 1::2] = torch.sin(X), torch.cos(X)
    P = P.to(dev)
    causal = transformer.generate_square_subsequent_mask(L).to(dev)
    src = torch.randint(0, V, (B, L), device=dev)
    tgt = torch.randint(0, V, (B, L), device=dev)
    labels = torch.randint(0, V, (B, L), device=dev)

    def step():
        opt.zero_grad()
        with torch.autocast(dev.type, dtype=torch.bfloat16, enabled=a.precision == "bf16"):
            x = drop(src_emb(src) * math.sqrt(C) + P)
            y = drop(tgt_emb(tgt) * math.sqrt(C) + P)
            logits = output(transformer(x, y, tgt_mask=causal))
            loss = nn.functional.cross_entropy(logits.reshape(-1, V), labels.reshape(-1))
        loss.backward()
        opt.step()
        if dev.type == "cuda":
            loss.item()  # waits for the GPU, as the C++ step's loss read-back does

    step()  # warm-up
    best = float("inf")
    for _ in range(a.steps):
        start = time.perf_counter()
        step()
        best = min(best, time.perf_counter() - start)
    print(f"torch_train_step_ms {best * 1e3:.2f} ms")
    print(f"torch_train_tokens_per_s {B * L / best:.1f} tokens/s")


if __name__ == "__main__":
    main()
