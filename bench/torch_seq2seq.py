#!/usr/bin/python3
"""PyTorch peer of `attend bench seq2seq`: the seeds' train_seq2seq step on the seeds' GRU + Bahdanau model.

Run with Debian's torch: /usr/bin/python3 bench/torch_seq2seq.py [--steps N] ...
One step = Seq2SeqEncoder + Seq2SeqAttentionDecoder forward (teacher forcing), MaskedSoftmaxCELoss summed,
backward, grad_clipping(net, 1), Adam (lr 0.005), as in seed 000. The model classes are the seeds', imported from
tools/fixtures_rnn.py. Two threads, as the C++ side uses. Prints `torch_seq2seq_tokens_per_s <value> tokens/s`
where tokens are the valid target tokens (Y_valid_len.sum(), the seeds' metric), best step of the timed ones.
"""
import argparse
import os
import sys
import time

import torch
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from fixtures_rnn import Seq2SeqAttentionDecoder, Seq2SeqEncoder  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--embed", type=int, default=32)
    p.add_argument("--hiddens", type=int, default=32)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--vocab", type=int, default=200)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--length", type=int, default=10)
    p.add_argument("--dropout", type=float, default=0.1)
    a = p.parse_args()
    torch.set_num_threads(2)
    torch.manual_seed(0)
    B, T, V = a.batch, a.length, a.vocab
    encoder = Seq2SeqEncoder(V, a.embed, a.hiddens, a.layers, a.dropout)
    decoder = Seq2SeqAttentionDecoder(V, a.embed, a.hiddens, a.layers, a.dropout)
    net = nn.ModuleList([encoder, decoder])
    net.train()
    opt = torch.optim.Adam(net.parameters(), lr=0.005)
    src = torch.randint(0, V, (B, T))
    dec_in = torch.randint(0, V, (B, T))
    labels = torch.randint(0, V, (B, T))
    g = torch.Generator().manual_seed(1)
    src_valid = torch.randint(3, T + 1, (B,), generator=g)
    tgt_valid = torch.randint(3, T + 1, (B,), generator=g)
    mask = (torch.arange(T)[None, :] < tgt_valid[:, None]).float()
    ce = nn.CrossEntropyLoss(reduction="none")

    def step():
        opt.zero_grad()
        state = decoder.init_state(encoder(src), src_valid)
        Y, _ = decoder(dec_in, state)
        l = ((ce(Y.permute(0, 2, 1), labels) * mask).mean(dim=1)).sum()
        l.backward()
        params = [p for p in net.parameters() if p.requires_grad]
        norm = torch.sqrt(sum(torch.sum(p.grad ** 2) for p in params))
        if norm > 1:
            for p in params:
                p.grad[:] *= 1 / norm
        opt.step()

    step()  # warm-up
    best = float("inf")
    for _ in range(a.steps):
        start = time.perf_counter()
        step()
        best = min(best, time.perf_counter() - start)
    tokens = int(tgt_valid.sum())
    print(f"torch_seq2seq_step_ms {best * 1e3:.2f} ms")
    print(f"torch_seq2seq_tokens_per_s {tokens / best:.1f} tokens/s")


if __name__ == "__main__":
    main()
