#!/usr/bin/python3
"""PyTorch peer of `attend bench lm`: d2l's train_epoch_ch8 step on the seeds' character language models.

Run with Debian's torch: /usr/bin/python3 bench/torch_lm.py --presets NAME:KIND:HIDDEN:LAYERS:BI:LR,... \
    [--threads 1,2] [--steps N] [--vocab 28]
One step = d2l's RNNModel (one-hot input, nn.RNN / nn.GRU / nn.LSTM, nn.Linear from D*H to the vocabulary) forward
over batch 32 x 35 steps from the carried, detached state, mean cross-entropy, backward, grad_clipping(net, 1),
SGD (p -= lr * grad). Prints `torch_lm_<name>_threads<n>_tokens_per_s <value> tokens/s` per preset and thread
count, the best of the timed steps after one warm-up, and `..._tokens_per_s_cpu` per CPU second of the process
(time.process_time, all threads); tokens are the 32 * 35 predictions of a batch.
"""
import argparse
import time

import torch
from torch import nn
from torch.nn import functional as F

BATCH, NUM_STEPS = 32, 35


class RNNModel(nn.Module):
    def __init__(self, rnn, vocab_size):
        super().__init__()
        self.rnn = rnn
        self.vocab_size = vocab_size
        directions = 2 if rnn.bidirectional else 1
        self.linear = nn.Linear(directions * rnn.hidden_size, vocab_size)

    def forward(self, inputs, state):
        X = F.one_hot(inputs.T.long(), self.vocab_size).to(torch.float32)
        Y, state = self.rnn(X, state)
        return self.linear(Y.reshape((-1, Y.shape[-1]))), state


def time_preset(kind, hidden, layers, bi, lr, vocab, steps):
    cls = {"rnn": nn.RNN, "gru": nn.GRU, "lstm": nn.LSTM}[kind]
    net = RNNModel(cls(vocab, hidden, layers, bidirectional=bi), vocab)
    shape = (layers * (2 if bi else 1), BATCH, hidden)
    state = (torch.zeros(shape), torch.zeros(shape)) if kind == "lstm" else torch.zeros(shape)
    corpus = torch.randint(0, vocab, ((steps + 2) * BATCH * NUM_STEPS + 1,))
    loss_fn = nn.CrossEntropyLoss()
    params = [p for p in net.parameters() if p.requires_grad]

    def step(i):
        nonlocal state
        start = i * BATCH * NUM_STEPS
        X = corpus[start:start + BATCH * NUM_STEPS].reshape(BATCH, NUM_STEPS)
        Y = corpus[start + 1:start + 1 + BATCH * NUM_STEPS].reshape(BATCH, NUM_STEPS)
        state = tuple(s.detach() for s in state) if kind == "lstm" else state.detach()
        y_hat, state = net(X, state)
        l = loss_fn(y_hat, Y.T.reshape(-1)).mean()
        for p in params:
            p.grad = None
        l.backward()
        norm = torch.sqrt(sum(torch.sum(p.grad ** 2) for p in params))
        if norm > 1:
            for p in params:
                p.grad[:] *= 1 / norm
        with torch.no_grad():
            for p in params:
                p -= lr * p.grad

    step(0)  # warm-up
    best, best_cpu = float("inf"), float("inf")
    for i in range(steps):
        start, cpu_start = time.perf_counter(), time.process_time()
        step(i + 1)
        best_cpu = min(best_cpu, time.process_time() - cpu_start)
        best = min(best, time.perf_counter() - start)
    return best, best_cpu


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--presets", required=True)
    p.add_argument("--threads", default="1")
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--vocab", type=int, default=28)
    a = p.parse_args()
    torch.manual_seed(0)
    for spec in a.presets.split(","):
        name, kind, hidden, layers, bi, lr = spec.split(":")
        for n in [int(t) for t in a.threads.split(",")]:
            torch.set_num_threads(n)
            best, best_cpu = time_preset(kind, int(hidden), int(layers), bi == "1", float(lr), a.vocab, a.steps)
            print(f"torch_lm_{name}_threads{n}_tokens_per_s {BATCH * NUM_STEPS / best:.1f} tokens/s", flush=True)
            print(f"torch_lm_{name}_threads{n}_tokens_per_s_cpu {BATCH * NUM_STEPS / best_cpu:.1f} tokens/s "
                  "(per CPU second of the process)", flush=True)


if __name__ == "__main__":
    main()
