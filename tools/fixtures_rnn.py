#!/usr/bin/python3
"""PyTorch parity fixtures for the RNN side (GRU, LSTM, losses, optimizers, the seeds' Bahdanau seq2seq).

Run with Debian's python3 (torch 1.13):  /usr/bin/python3 tools/fixtures_rnn.py
Writes small files to tests/fixtures/rnn_*.safetensors (tiny dimensions; C++ tests read them without torch).
Every gradient stored is of loss = sum_k sum(output_k * R_k) for the random projections R_k also stored, so the
C++ side feeds R_k as the output gradients.
"""
import os
import sys

import numpy as np
import torch
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import safetensors_np  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures")


def f32(t):
    return t.detach().cpu().numpy().astype(np.float32)


def save(name, tensors, meta=None):
    path = os.path.join(OUT, name)
    safetensors_np.save(path, tensors, meta)
    print(f"wrote {os.path.relpath(path)} ({os.path.getsize(path)} bytes)")


def rnn_fixture(name, kind, input_size, hidden, layers, bidirectional, T, B, with_h0, seed):
    torch.manual_seed(seed)
    cls = {"rnn": nn.RNN, "gru": nn.GRU, "lstm": nn.LSTM}[kind]
    rnn = cls(input_size, hidden, layers, bidirectional=bidirectional)
    D = 2 if bidirectional else 1
    x = torch.randn(T, B, input_size, requires_grad=True)
    h0 = torch.randn(layers * D, B, hidden, requires_grad=True) if with_h0 else None
    c0 = torch.randn(layers * D, B, hidden, requires_grad=True) if (with_h0 and kind == "lstm") else None
    if kind != "lstm":
        out, h_n = rnn(x, h0) if h0 is not None else rnn(x)
        finals = {"h_n": h_n}
    else:
        out, (h_n, c_n) = rnn(x, (h0, c0)) if h0 is not None else rnn(x)
        finals = {"h_n": h_n, "c_n": c_n}
    r_out = torch.randn_like(out)
    loss = (out * r_out).sum()
    tensors = {"x": f32(x), "out": f32(out), "r_out": f32(r_out)}
    for k, v in finals.items():
        r = torch.randn_like(v)
        loss = loss + (v * r).sum()
        tensors[k] = f32(v)
        tensors["r_" + k] = f32(r)
    loss.backward()
    tensors["grad.x"] = f32(x.grad)
    if h0 is not None:
        tensors["h0"] = f32(h0)
        tensors["grad.h0"] = f32(h0.grad)
    if c0 is not None:
        tensors["c0"] = f32(c0)
        tensors["grad.c0"] = f32(c0.grad)
    for pname, p in rnn.named_parameters():
        tensors["param." + pname] = f32(p)
        tensors["grad." + pname] = f32(p.grad)
    meta = {"kind": kind, "input_size": str(input_size), "hidden_size": str(hidden), "num_layers": str(layers),
            "bidirectional": str(int(bidirectional)), "T": str(T), "B": str(B), "torch": torch.__version__}
    save(name, tensors, meta)


class RNNModel(nn.Module):
    """d2l's RNNModel (8.6, concise): one-hot input, a recurrent layer, a linear output over the vocabulary."""

    def __init__(self, rnn_layer, vocab_size):
        super().__init__()
        self.rnn = rnn_layer
        self.vocab_size = vocab_size
        self.num_hiddens = self.rnn.hidden_size
        self.num_directions = 2 if self.rnn.bidirectional else 1
        self.linear = nn.Linear(self.num_hiddens * self.num_directions, self.vocab_size)

    def forward(self, inputs, state):
        X = nn.functional.one_hot(inputs.T.long(), self.vocab_size)
        X = X.to(torch.float32)
        Y, state = self.rnn(X, state)
        output = self.linear(Y.reshape((-1, Y.shape[-1])))
        return output, state


def lm_fixture(name, kind, hidden, layers, bidirectional, seed):
    """One training step of d2l's train_epoch_ch8 on a batch [B, T] of token ids: the logits [T*B, V] (time-major),
    the mean cross-entropy, the gradients before clipping and the parameters after grad_clipping(net, 1) and
    d2l.sgd / torch SGD with lr 1, from a given start state."""
    torch.manual_seed(seed)
    V, B, T = 11, 3, 6
    cls = {"rnn": nn.RNN, "gru": nn.GRU, "lstm": nn.LSTM}[kind]
    net = RNNModel(cls(V, hidden, layers, bidirectional=bidirectional), V)
    D = 2 if bidirectional else 1
    X = torch.randint(0, V, (B, T))
    Y = torch.randint(0, V, (B, T))
    h0 = torch.randn(layers * D, B, hidden) * 0.5
    state = (h0, torch.randn(layers * D, B, hidden) * 0.5) if kind == "lstm" else h0
    y_hat, new_state = net(X, state)
    y = Y.T.reshape(-1)
    loss = nn.CrossEntropyLoss()(y_hat, y.long()).mean()
    loss.backward()
    tensors = {"X": X.numpy().astype(np.int32), "Y": Y.numpy().astype(np.int32), "logits": f32(y_hat),
               "loss": f32(loss.reshape(1))}
    if kind == "lstm":
        tensors.update({"h0": f32(state[0]), "c0": f32(state[1]), "h_n": f32(new_state[0]), "c_n": f32(new_state[1])})
    else:
        tensors.update({"h0": f32(state), "h_n": f32(new_state)})
    params = [p for p in net.parameters()]
    for pname, p in net.named_parameters():
        tensors["param." + pname] = f32(p)
        tensors["grad." + pname] = f32(p.grad)
    norm = torch.sqrt(sum(torch.sum((p.grad ** 2)) for p in params))
    if norm > 1:
        for p in params:
            p.grad[:] *= 1 / norm
    with torch.no_grad():
        for p in params:
            p -= 1.0 * p.grad
    for pname, p in net.named_parameters():
        tensors["after." + pname] = f32(p)
    meta = {"kind": kind, "vocab": str(V), "hidden_size": str(hidden), "num_layers": str(layers),
            "bidirectional": str(int(bidirectional)), "T": str(T), "B": str(B), "grad_norm": repr(float(norm)),
            "torch": torch.__version__}
    save(name, tensors, meta)


def cross_entropy_fixture():
    torch.manual_seed(11)
    N, V, pad = 7, 6, 0
    logits = (torch.randn(N, V) * 2).requires_grad_(True)
    targets = torch.tensor([3, 0, 5, 1, 0, 2, 4])  # two rows are padding
    loss_fn = nn.CrossEntropyLoss(ignore_index=pad, label_smoothing=0.1)
    loss = loss_fn(logits, targets)
    loss.backward()
    rows = nn.CrossEntropyLoss(ignore_index=pad, label_smoothing=0.1, reduction="none")(logits.detach(), targets)
    tensors = {"logits": f32(logits), "targets": targets.numpy().astype(np.int32), "loss_mean": f32(loss.reshape(1)),
               "loss_rows": f32(rows), "grad.logits": f32(logits.grad)}

    # The seeds' MaskedSoftmaxCELoss (d2l), summed as the seeds' training loop does.
    B, T = 3, 4
    pred = torch.randn(B, T, V, requires_grad=True)
    label = torch.randint(0, V, (B, T))
    valid_len = torch.tensor([4, 2, 1])
    weights = (torch.arange(T)[None, :] < valid_len[:, None]).float()
    unweighted = nn.CrossEntropyLoss(reduction="none")(pred.permute(0, 2, 1), label)
    per_seq = (unweighted * weights).mean(dim=1)
    per_seq.sum().backward()
    tensors.update({"mce.pred": f32(pred), "mce.label": label.numpy().astype(np.int32),
                    "mce.valid_len": valid_len.numpy().astype(np.int32), "mce.loss": f32(per_seq),
                    "mce.grad.pred": f32(pred.grad)})
    save("rnn_loss.safetensors", tensors, {"ignore_index": str(pad), "label_smoothing": "0.1"})


def optimizer_fixture():
    torch.manual_seed(5)
    n, steps = 12, 3
    p0 = torch.randn(n)
    grads = torch.randn(steps, n)
    tensors = {"p0": f32(p0), "grads": f32(grads)}
    configs = {
        "adam": lambda ps: torch.optim.Adam(ps, lr=0.01, betas=(0.9, 0.98), eps=1e-9, weight_decay=0.1),
        "adamw": lambda ps: torch.optim.AdamW(ps, lr=0.01, betas=(0.9, 0.98), eps=1e-9, weight_decay=0.1),
        "sgd": lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01),
        "sgd_nesterov": lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=0.01, nesterov=True),
    }
    for name, make in configs.items():
        p = nn.Parameter(p0.clone())
        opt = make([p])
        after = []
        for s in range(steps):
            opt.zero_grad()
            p.grad = grads[s].clone()
            opt.step()
            after.append(p.detach().clone())
        tensors[name + ".after"] = f32(torch.stack(after))
    save("rnn_optim.safetensors", tensors,
         {"adam": "lr 0.01 betas (0.9,0.98) eps 1e-9 weight_decay 0.1",
          "sgd": "lr 0.1 momentum 0.9 dampening 0.1 weight_decay 0.01",
          "sgd_nesterov": "lr 0.1 momentum 0.9 weight_decay 0.01 nesterov"})


# ---- the seeds' Bahdanau seq2seq (000/004, d2l), verbatim semantics --------------------------------------
def sequence_mask(X, valid_len, value=0):
    maxlen = X.size(1)
    mask = torch.arange((maxlen), dtype=torch.float32, device=X.device)[None, :] < valid_len[:, None]
    X[~mask] = value
    return X


def masked_softmax(X, valid_lens):
    if valid_lens is None:
        return nn.functional.softmax(X, dim=-1)
    shape = X.shape
    if valid_lens.dim() == 1:
        valid_lens = torch.repeat_interleave(valid_lens, shape[1])
    else:
        valid_lens = valid_lens.reshape(-1)
    X = sequence_mask(X.reshape(-1, shape[-1]), valid_lens, value=-1e6)
    return nn.functional.softmax(X.reshape(shape), dim=-1)


class AdditiveAttention(nn.Module):
    def __init__(self, key_size, query_size, num_hiddens, dropout):
        super().__init__()
        self.W_k = nn.Linear(key_size, num_hiddens, bias=False)
        self.W_q = nn.Linear(query_size, num_hiddens, bias=False)
        self.w_v = nn.Linear(num_hiddens, 1, bias=False)
        self.dropout = nn.Dropout(dropout)

    def forward(self, queries, keys, values, valid_lens):
        queries, keys = self.W_q(queries), self.W_k(keys)
        features = torch.tanh(queries.unsqueeze(2) + keys.unsqueeze(1))
        scores = self.w_v(features).squeeze(-1)
        self.attention_weights = masked_softmax(scores, valid_lens)
        return torch.bmm(self.dropout(self.attention_weights), values)


class Seq2SeqEncoder(nn.Module):
    def __init__(self, vocab_size, embed_size, num_hiddens, num_layers, dropout=0, bidirectional=False):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.rnn = nn.GRU(embed_size, num_hiddens, num_layers, dropout=dropout, bidirectional=bidirectional)

    def forward(self, X):
        X = self.embedding(X).permute(1, 0, 2)
        return self.rnn(X)


class Seq2SeqAttentionDecoder(nn.Module):
    # bidirectional (not in the seeds): the encoder's outputs are 2H wide (keys, values, context) and each layer
    # starts from tanh(init_state[l](cat(forward_l, backward_l))), Attend's Seq2SeqAttentionDecoder::init_state.
    def __init__(self, vocab_size, embed_size, num_hiddens, num_layers, dropout=0, bidirectional=False):
        super().__init__()
        key_size = 2 * num_hiddens if bidirectional else num_hiddens
        self.attention = AdditiveAttention(key_size, num_hiddens, num_hiddens, dropout)
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.rnn = nn.GRU(embed_size + key_size, num_hiddens, num_layers, dropout=dropout)
        self.dense = nn.Linear(num_hiddens, vocab_size)
        self.bidirectional = bidirectional
        if bidirectional:
            self.init_state_proj = nn.ModuleList([nn.Linear(2 * num_hiddens, num_hiddens) for _ in range(num_layers)])

    def init_state(self, enc_outputs, enc_valid_lens):
        outputs, hidden_state = enc_outputs
        if self.bidirectional:  # [2L, B, H]: layer l forward at 2l, reverse at 2l + 1
            hidden_state = torch.stack([torch.tanh(proj(torch.cat((hidden_state[2 * l], hidden_state[2 * l + 1]), -1)))
                                        for l, proj in enumerate(self.init_state_proj)])
        return (outputs.permute(1, 0, 2), hidden_state, enc_valid_lens)

    def forward(self, X, state):
        enc_outputs, hidden_state, enc_valid_lens = state
        X = self.embedding(X).permute(1, 0, 2)
        outputs, self._attention_weights = [], []
        for x in X:
            query = torch.unsqueeze(hidden_state[-1], dim=1)
            context = self.attention(query, enc_outputs, enc_outputs, enc_valid_lens)
            x = torch.cat((context, torch.unsqueeze(x, dim=1)), dim=-1)
            out, hidden_state = self.rnn(x.permute(1, 0, 2), hidden_state)
            outputs.append(out)
            self._attention_weights.append(self.attention.attention_weights)
        outputs = self.dense(torch.cat(outputs, dim=0))
        return outputs.permute(1, 0, 2), [enc_outputs, hidden_state, enc_valid_lens]


def seq2seq_fixture(bidirectional=False):
    torch.manual_seed(22 if bidirectional else 21)
    V_src, V_tgt, E, H, L = 11, 9, 6, 8, 2
    B, Ts, Tt = 3, 5, 4
    encoder = Seq2SeqEncoder(V_src, E, H, L, bidirectional=bidirectional)
    decoder = Seq2SeqAttentionDecoder(V_tgt, E, H, L, bidirectional=bidirectional)
    encoder.eval()
    decoder.eval()
    src = torch.randint(0, V_src, (B, Ts))
    tgt_in = torch.randint(0, V_tgt, (B, Tt))
    labels = torch.randint(0, V_tgt, (B, Tt))
    src_valid = torch.tensor([5, 3, 2])
    tgt_valid = torch.tensor([4, 2, 3])
    enc_out = encoder(src)
    state = decoder.init_state(enc_out, src_valid)
    Y, new_state = decoder(tgt_in, state)
    unweighted = nn.CrossEntropyLoss(reduction="none")(Y.permute(0, 2, 1), labels)
    mask = (torch.arange(Tt)[None, :] < tgt_valid[:, None]).float()
    loss = ((unweighted * mask).mean(dim=1)).sum()
    r_h = torch.randn_like(new_state[1])
    (loss + (new_state[1] * r_h).sum()).backward()
    attn = torch.stack([w.squeeze(1) for w in decoder._attention_weights])  # [Tt, B, Ts]
    tensors = {"src": src.numpy().astype(np.int32), "tgt_in": tgt_in.numpy().astype(np.int32),
               "labels": labels.numpy().astype(np.int32), "src_valid": src_valid.numpy().astype(np.int32),
               "tgt_valid": tgt_valid.numpy().astype(np.int32), "enc_outputs": f32(enc_out[0]),
               "enc_state": f32(enc_out[1]), "dec_output": f32(Y), "dec_state": f32(new_state[1]),
               "attention": f32(attn), "loss": f32(loss.reshape(1)), "r_dec_state": f32(r_h)}
    if bidirectional:
        tensors["dec_init_state"] = f32(state[1])
    for prefix, module in (("encoder.", encoder), ("decoder.", decoder)):
        for pname, p in module.named_parameters():
            pname = pname.replace("init_state_proj.", "init_state.")  # Attend's names
            tensors["param." + prefix + pname] = f32(p)
            tensors["grad." + prefix + pname] = f32(p.grad)
    meta = {"src_vocab": str(V_src), "tgt_vocab": str(V_tgt), "embed_size": str(E), "num_hiddens": str(H),
            "num_layers": str(L), "batch": str(B), "src_steps": str(Ts), "tgt_steps": str(Tt)}
    if bidirectional:
        meta["bidirectional"] = "1"
    save("rnn_seq2seq_bi.safetensors" if bidirectional else "rnn_seq2seq.safetensors", tensors, meta)


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.set_num_threads(1)
    rnn_fixture("rnn_gru.safetensors", "gru", 3, 4, 2, False, 5, 2, True, 1)
    rnn_fixture("rnn_gru_bi.safetensors", "gru", 3, 4, 2, True, 4, 2, False, 2)
    rnn_fixture("rnn_lstm.safetensors", "lstm", 3, 4, 2, False, 5, 2, True, 3)
    rnn_fixture("rnn_lstm_bi.safetensors", "lstm", 3, 4, 2, True, 4, 2, True, 4)
    rnn_fixture("rnn_rnn.safetensors", "rnn", 3, 4, 2, False, 5, 2, True, 5)
    rnn_fixture("rnn_rnn_bi.safetensors", "rnn", 3, 4, 2, True, 4, 2, True, 6)
    rnn_fixture("rnn_rnn_1.safetensors", "rnn", 5, 9, 1, False, 6, 3, False, 7)
    rnn_fixture("rnn_rnn_3bi.safetensors", "rnn", 4, 6, 3, True, 5, 3, False, 8)
    lm_fixture("rnn_lm_rnn.safetensors", "rnn", 7, 1, False, 9)
    lm_fixture("rnn_lm_lstm_bi.safetensors", "lstm", 5, 2, True, 10)
    cross_entropy_fixture()
    optimizer_fixture()
    seq2seq_fixture()
    seq2seq_fixture(bidirectional=True)


if __name__ == "__main__":
    main()
