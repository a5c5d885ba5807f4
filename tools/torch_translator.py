"""The PyTorch peer of `attend bench translate`: an Attend translator model file run by hand-written torch modules
in eager mode, greedy and beam search decoding from the same source token ids.

Run with Debian's torch (/usr/bin/python3). The C++ bench writes the source ids (after the model's own
tokenization and BPE, <eos> last) to a text file, one sentence a line: `max_length id id ... id`, where
max_length is the most tokens the search may generate (<eos> included), the same limit Attend used.

    /usr/bin/python3 tools/torch_translator.py --model M.safetensors --ids ids.txt --bos 2 --eos 3 --beam 5

Prints `name value unit` figures (wall-clock and CPU-time ms per sentence, one thread unless --threads) and, for
every sentence and search, `ids greedy|beamK <sentence> <log_prob> <target ids...>` lines (the generated ids
without <bos>, <eos> last when finished, and their summed log-probability), which the C++ side compares with its
own: equal ids and log-probabilities equal to float rounding show both sides compute the same function.

The function is the one of core/model/transformer.cpp: embedding * sqrt(C) + sinusoidal positional encoding,
post-LN (or pre-LN) encoder and decoder blocks with biased q/k/v/out projections, ReLU (or erf GELU) FFN,
optional final LayerNorms, output projection (tied to the embedding when the config says so). Weights stored as
F16 or I8 (with `<name>.scale` per row) are dequantized to float32 as the C++ loader does. Decoding keeps the
projected keys and values of earlier positions (as Attend does) so that both sides do the same arithmetic.
"""
import argparse
import json
import math
import os
import sys
import time


def _requested_threads(argv):
    for i, arg in enumerate(argv):
        if arg == "--threads" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--threads="):
            return arg.split("=", 1)[1]
    return "1"


# torch.set_num_threads does not reach the thread pool of Debian's OpenBLAS (libopenblas0-pthread), which would run
# a second thread beside the one asked for (measured: CPU time twice the wall time at --threads 1). OpenBLAS sizes
# its pool when torch loads it, so this comes before the import.
os.environ["OPENBLAS_NUM_THREADS"] = _requested_threads(sys.argv)

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import safetensors_np  # noqa: E402


def load_weights(path):
    """Float32 tensors by name (F16 and I8 dequantized), the config JSON, and the weights dtype."""
    tensors, metadata = safetensors_np.load(path)
    if metadata.get("attend.format") != "attend-translator":
        raise SystemExit(f"{path}: not an Attend translator model (attend.format is "
                         f"{metadata.get('attend.format')!r})")
    weights = {}
    for name, value in tensors.items():
        if name.startswith("optimizer.") or name.endswith(".scale"):
            continue  # training checkpoints keep optimizer state beside the model; scales go with their matrix
        if value.dtype == np.int8:
            scale = tensors.get(name + ".scale")
            if scale is None:
                raise SystemExit(f"{path}: I8 tensor '{name}' has no '{name}.scale'")
            value = value.astype(np.float32) * scale.astype(np.float32).reshape(-1, *([1] * (value.ndim - 1)))
        weights[name] = torch.from_numpy(np.ascontiguousarray(value, dtype=np.float32))
    return weights, json.loads(metadata["attend.config"]), metadata.get("attend.weights_dtype", "?")


def linear(weights, prefix, bias=True):
    w = weights[prefix + ".weight"]
    layer = nn.Linear(w.shape[1], w.shape[0], bias=bias)
    layer.weight.data.copy_(w)
    if bias:
        layer.bias.data.copy_(weights[prefix + ".bias"])
    return layer


def layer_norm(weights, prefix, eps):
    w = weights[prefix + ".weight"]
    norm = nn.LayerNorm(w.shape[0], eps=eps)
    norm.weight.data.copy_(w)
    norm.bias.data.copy_(weights[prefix + ".bias"])
    return norm


def positional_encoding(T, C):
    """P [T, C]: sin at even columns, cos at odd ones; angles in float32 like d2l (and Attend)."""
    columns = torch.arange(0, C, 2, dtype=torch.float32)
    inv_freq = 1.0 / torch.pow(torch.tensor(10000.0), columns / C)
    angles = torch.arange(T, dtype=torch.float32).reshape(-1, 1) * inv_freq
    P = torch.zeros(T, C)
    P[:, 0::2] = torch.sin(angles)
    P[:, 1::2] = torch.cos(angles)[:, : C // 2]
    return P


class MultiHeadAttention(nn.Module):
    def __init__(self, weights, prefix, heads, bias):
        super().__init__()
        self.q_proj = linear(weights, prefix + ".q_proj", bias)
        self.k_proj = linear(weights, prefix + ".k_proj", bias)
        self.v_proj = linear(weights, prefix + ".v_proj", bias)
        self.out_proj = linear(weights, prefix + ".out_proj", bias)
        self.heads = heads

    def split(self, x):  # [n, T, C] -> [n, H, T, D]
        n, T, C = x.shape
        return x.reshape(n, T, self.heads, C // self.heads).transpose(1, 2)

    def attend(self, q, k, v):  # q [n, Tq, C]; k, v [n, H, Tk, D]; no mask needed (see callers)
        n, Tq, C = q.shape
        q = self.split(q) * (1.0 / math.sqrt(C // self.heads))
        weights = torch.softmax(q @ k.transpose(-1, -2), dim=-1)
        return self.out_proj((weights @ v).transpose(1, 2).reshape(n, Tq, C))

    def forward(self, query, keys):
        return self.attend(self.q_proj(query), self.split(self.k_proj(keys)), self.split(self.v_proj(keys)))


class FeedForward(nn.Module):
    def __init__(self, weights, prefix, activation):
        super().__init__()
        self.linear1 = linear(weights, prefix + "linear1")
        self.linear2 = linear(weights, prefix + "linear2")
        self.activation = F.relu if activation == "relu" else F.gelu  # F.gelu is the erf form, as Attend's

    def forward(self, x):
        return self.linear2(self.activation(self.linear1(x)))


def residual(norm, pre_ln, x, sublayer):
    """Post-LN: norm(x + f(x)) (the seeds' AddNorm); pre-LN: x + f(norm(x))."""
    return x + sublayer(norm(x)) if pre_ln else norm(x + sublayer(x))


class EncoderBlock(nn.Module):
    def __init__(self, weights, prefix, config):
        super().__init__()
        eps, self.pre_ln = config["layernorm_eps"], config["pre_ln"]
        self.self_attn = MultiHeadAttention(weights, prefix + "self_attn", config["heads"], config["bias"])
        self.ffn = FeedForward(weights, prefix, config["activation"])
        self.norm1 = layer_norm(weights, prefix + "norm1", eps)
        self.norm2 = layer_norm(weights, prefix + "norm2", eps)

    def forward(self, x):  # one unpadded sentence: no mask
        x = residual(self.norm1, self.pre_ln, x, lambda y: self.self_attn(y, y))
        return residual(self.norm2, self.pre_ln, x, self.ffn)


class DecoderBlock(nn.Module):
    def __init__(self, weights, prefix, config):
        super().__init__()
        eps, self.pre_ln = config["layernorm_eps"], config["pre_ln"]
        self.self_attn = MultiHeadAttention(weights, prefix + "self_attn", config["heads"], config["bias"])
        self.cross_attn = MultiHeadAttention(weights, prefix + "cross_attn", config["heads"], config["bias"])
        self.ffn = FeedForward(weights, prefix, config["activation"])
        self.norm1 = layer_norm(weights, prefix + "norm1", eps)
        self.norm2 = layer_norm(weights, prefix + "norm2", eps)
        self.norm3 = layer_norm(weights, prefix + "norm3", eps)

    def start(self, memory):
        """The cache of one sentence: projected memory keys/values [1, H, S, D], no self keys/values yet."""
        return {"memory_k": self.cross_attn.split(self.cross_attn.k_proj(memory)),
                "memory_v": self.cross_attn.split(self.cross_attn.v_proj(memory)), "k": None, "v": None}

    def step(self, x, cache):
        """x [n, 1, C]: the newest position of n hypotheses. The cache holds the earlier positions, so the
        causal mask is implicit."""
        def self_attention(y):
            a = self.self_attn
            k, v = a.split(a.k_proj(y)), a.split(a.v_proj(y))
            cache["k"] = k if cache["k"] is None else torch.cat([cache["k"], k], dim=2)
            cache["v"] = v if cache["v"] is None else torch.cat([cache["v"], v], dim=2)
            return a.attend(a.q_proj(y), cache["k"], cache["v"])

        def cross_attention(y):
            n = y.shape[0]
            a = self.cross_attn
            return a.attend(a.q_proj(y), cache["memory_k"].expand(n, -1, -1, -1),
                            cache["memory_v"].expand(n, -1, -1, -1))

        x = residual(self.norm1, self.pre_ln, x, self_attention)
        x = residual(self.norm2, self.pre_ln, x, cross_attention)
        return residual(self.norm3, self.pre_ln, x, self.ffn)


class Transformer(nn.Module):
    def __init__(self, weights, config):
        super().__init__()
        self.config = config
        C = config["model_dim"]
        eps = config["layernorm_eps"]
        if config["tie_embeddings"]:
            src, tgt, out = "embedding.weight", "embedding.weight", "embedding.weight"
        else:
            src, tgt, out = "src_embedding.weight", "tgt_embedding.weight", "output.weight"
        self.src_embedding = nn.Embedding.from_pretrained(weights[src])
        self.tgt_embedding = nn.Embedding.from_pretrained(weights[tgt])
        self.output = nn.Linear(C, config["tgt_vocab"])
        self.output.weight.data.copy_(weights[out])
        self.output.bias.data.copy_(weights["output.bias"])
        self.encoder = nn.ModuleList(EncoderBlock(weights, f"encoder.layers.{i}.", config)
                                     for i in range(config["encoder_layers"]))
        self.decoder = nn.ModuleList(DecoderBlock(weights, f"decoder.layers.{i}.", config)
                                     for i in range(config["decoder_layers"]))
        final = config["final_norm"]
        self.encoder_norm = layer_norm(weights, "encoder.norm", eps) if final else nn.Identity()
        self.decoder_norm = layer_norm(weights, "decoder.norm", eps) if final else nn.Identity()
        self.scale = math.sqrt(C)
        self.register_buffer("P", positional_encoding(config["max_len"], C))

    def encode(self, src):  # src [1, S] -> memory [1, S, C]
        x = self.src_embedding(src) * self.scale + self.P[: src.shape[1]]
        for block in self.encoder:
            x = block(x)
        return self.encoder_norm(x)

    def start(self, src):
        memory = self.encode(src)
        return [block.start(memory) for block in self.decoder]

    def step(self, tokens, caches, t):
        """tokens [n] at position t -> logits [n, V]."""
        x = self.tgt_embedding(tokens.reshape(-1, 1)) * self.scale + self.P[t : t + 1]
        for block, cache in zip(self.decoder, caches):
            x = block.step(x, cache)
        return self.output(self.decoder_norm(x))[:, 0]


def select(caches, parents):
    """Hypothesis i continues hypothesis parents[i]: gather the self-attention caches' rows."""
    for cache in caches:
        cache["k"] = cache["k"].index_select(0, parents)
        cache["v"] = cache["v"].index_select(0, parents)


def greedy(model, src, max_length, bos, eos):
    caches = model.start(src)
    token = torch.tensor([bos])
    out, log_prob = [], 0.0
    for t in range(max_length):
        log_probs = torch.log_softmax(model.step(token, caches, t), dim=-1)
        token = log_probs.argmax(dim=-1)
        out.append(int(token))
        log_prob += float(log_probs[0, out[-1]])
        if out[-1] == eos:
            break
    return out, log_prob


def normalized_score(log_prob, length, alpha):
    return log_prob if alpha == 0 or length <= 0 else log_prob / length ** alpha


def beam_search(model, src, max_length, bos, eos, K, alpha):
    """core/decode/beam_search.cpp: 2K candidates per hypothesis; an <eos> among the K best candidates finishes
    a hypothesis; stop when K have finished or at max_length; unfinished ones compete only when fewer than K
    finished. Hypotheses are (tokens, log_prob, score, finished)."""
    caches = model.start(src)
    live = [([], 0.0)]
    last = torch.tensor([bos])
    finished = []
    V = model.config["tgt_vocab"]
    per_row = min(2 * K, V)
    for t in range(max_length):
        if not live:
            break
        log_probs = torch.log_softmax(model.step(last, caches, t), dim=-1)
        values, indices = log_probs.topk(per_row, dim=-1)
        totals = torch.tensor([lp for _, lp in live], dtype=torch.float32).reshape(-1, 1) + values
        candidates = [(total, parent, token) for parent, (row_totals, row_tokens) in
                      enumerate(zip(totals.tolist(), indices.tolist())) for total, token in zip(row_totals, row_tokens)]
        candidates.sort(key=lambda c: (-c[0], c[1], c[2]))
        next_live, parents, tokens = [], [], []
        for rank, (total, parent, token) in enumerate(candidates):
            if len(next_live) >= K:
                break
            hyp = live[parent][0] + [token]
            if token == eos:
                if rank < K:
                    finished.append((hyp, total, normalized_score(total, len(hyp), alpha), True))
                continue
            next_live.append((hyp, total))
            parents.append(parent)
            tokens.append(token)
        if len(finished) >= K:
            break
        live = next_live
        if live:
            select(caches, torch.tensor(parents))
            last = torch.tensor(tokens)
    if len(finished) < K:
        finished += [(hyp, lp, normalized_score(lp, len(hyp), alpha), False) for hyp, lp in live]
    finished.sort(key=lambda h: (not h[3], -h[2]))
    return finished[0][0], finished[0][1]


def read_ids(path):
    sentences = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            fields = [int(x) for x in line.split()]
            if len(fields) < 2:
                raise SystemExit(f"{path}:{number}: expected 'max_length id ...', got {line!r}")
            sentences.append((fields[0], fields[1:]))
    return sentences


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="Attend translator model file (.safetensors)")
    parser.add_argument("--ids", required=True, help="source ids file: 'max_length id ... id' per line")
    parser.add_argument("--bos", type=int, required=True)
    parser.add_argument("--eos", type=int, required=True)
    parser.add_argument("--beam", type=int, default=5, help="beam size of the second search (0: greedy only)")
    parser.add_argument("--length-penalty", type=float, default=0.6)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--warmup", type=int, default=5, help="sentences decoded before timing")
    args = parser.parse_args()

    torch.set_num_threads(args.threads)
    weights, config, dtype = load_weights(args.model)
    model = Transformer(weights, config).eval()
    sentences = read_ids(args.ids)
    print(f"# torch {torch.__version__} eager, {torch.get_num_threads()} thread(s), {dtype} weights as float32, "
          f"{len(sentences)} sentences")
    searches = [("greedy", lambda src, n: greedy(model, src, n, args.bos, args.eos))]
    if args.beam > 0:
        searches.append((f"beam{args.beam}", lambda src, n: beam_search(model, src, n, args.bos, args.eos,
                                                                         args.beam, args.length_penalty)))
    with torch.inference_mode():
        for name, search in searches:
            for max_length, ids in sentences[: args.warmup]:
                search(torch.tensor([ids]), max_length)
            results, tokens = [], 0
            start, cpu_start = time.perf_counter(), time.process_time()
            for max_length, ids in sentences:
                results.append(search(torch.tensor([ids]), max_length))
                tokens += len(results[-1][0])
            seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
            print(f"torch_{name}_ms_per_sentence {1e3 * seconds / len(sentences):.3f} ms")
            print(f"torch_{name}_cpu_ms_per_sentence {1e3 * cpu_seconds / len(sentences):.3f} ms")
            print(f"torch_{name}_tokens_per_s {tokens / seconds:.1f} tokens/s")
            for i, (out, log_prob) in enumerate(results):
                print(f"ids {name} {i} {log_prob:.6f} " + " ".join(map(str, out)))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
