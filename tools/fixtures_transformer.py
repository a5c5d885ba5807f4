#!/usr/bin/python3
"""PyTorch reference fixtures for the transformer side (run with Debian's /usr/bin/python3, torch 1.13):

    /usr/bin/python3 tools/fixtures_transformer.py

writes small safetensors files to tests/fixtures/ that the C++ tests (tests/native/test_transformer_*.cpp,
test_mha_*.cpp) compare against without torch:
  transformer_mha.safetensors        nn.MultiheadAttention (batch_first) with key_padding_mask + float attn_mask
                                     (case "a", cross-attention form) and a bool attn_mask (case "b", self-attention);
                                     outputs, per-head weights, input and weight gradients of sum(out * G).
  transformer_layernorm.safetensors  nn.LayerNorm forward + gradients of sum(out * G).
  transformer_small.safetensors      embedding*sqrt(C) + d2l positional encoding + nn.Transformer + output Linear,
                                     post-LN (case "post") and pre-LN with tied embeddings and GELU (case "pre");
                                     logits, dL/dlogits and every parameter gradient of mean cross entropy.
Tensor names are Attend's (torch's in_proj_weight is split into q/k/v_proj, multihead_attn -> cross_attn).
"""
import json
import math
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


def i32(t):
    return t.detach().cpu().numpy().astype(np.int32)


def split_attention(prefix, mha, out, grad=False):
    """torch MultiheadAttention parameters (or their gradients) under Attend's names."""
    get = (lambda p: None if p is None else p.grad) if grad else (lambda p: p)
    w, b = get(mha.in_proj_weight), get(mha.in_proj_bias)
    for i, name in enumerate(["q_proj", "k_proj", "v_proj"]):
        E = mha.embed_dim
        out[f"{prefix}.{name}.weight"] = f32(w[i * E:(i + 1) * E])
        if b is not None:
            out[f"{prefix}.{name}.bias"] = f32(b[i * E:(i + 1) * E])
    out[f"{prefix}.out_proj.weight"] = f32(get(mha.out_proj.weight))
    if mha.out_proj.bias is not None:
        out[f"{prefix}.out_proj.bias"] = f32(get(mha.out_proj.bias))


def mha_fixture():
    torch.manual_seed(1)
    t = {}
    B, Tq, Tk, E, H = 2, 3, 4, 8, 2
    # case a: cross-attention form (query != key = value), key_padding_mask + float attn_mask
    mha = nn.MultiheadAttention(E, H, bias=True, batch_first=True)
    q = torch.randn(B, Tq, E, requires_grad=True)
    kv = torch.randn(B, Tk, E, requires_grad=True)
    kpm = torch.tensor([[False, False, False, True], [False, False, True, True]])
    attn_mask = torch.randn(Tq, Tk)
    attn_mask[0, 1] = float("-inf")
    out, weights = mha(q, kv, kv, key_padding_mask=kpm, attn_mask=attn_mask, need_weights=True,
                       average_attn_weights=False)
    G = torch.randn_like(out)
    (out * G).sum().backward()
    split_attention("a.attn", mha, t)
    split_attention("a.grad.attn", mha, t, grad=True)
    t.update({"a.query": f32(q), "a.key_value": f32(kv), "a.key_padding_mask": kpm.numpy().astype(np.uint8),
              "a.attn_mask": f32(attn_mask), "a.out": f32(out), "a.weights": f32(weights), "a.G": f32(G),
              "a.grad.query": f32(q.grad), "a.grad.key_value": f32(kv.grad)})
    # case b: self-attention with a boolean attn_mask (True = masked), no bias
    mha = nn.MultiheadAttention(E, H, bias=False, batch_first=True)
    x = torch.randn(B, Tk, E, requires_grad=True)
    bool_mask = torch.tensor([[False, True, False, True], [False, False, True, False],
                              [True, False, False, False], [False, False, False, True]])
    out, weights = mha(x, x, x, attn_mask=bool_mask, need_weights=True, average_attn_weights=False)
    G = torch.randn_like(out)
    (out * G).sum().backward()
    split_attention("b.attn", mha, t)
    split_attention("b.grad.attn", mha, t, grad=True)
    t.update({"b.x": f32(x), "b.attn_mask": bool_mask.numpy().astype(np.uint8), "b.out": f32(out),
              "b.weights": f32(weights), "b.G": f32(G), "b.grad.x": f32(x.grad)})
    safetensors_np.save(os.path.join(OUT, "transformer_mha.safetensors"), t)


def layernorm_fixture():
    torch.manual_seed(2)
    N, C = 6, 10
    ln = nn.LayerNorm(C)
    with torch.no_grad():
        ln.weight.copy_(torch.randn(C))
        ln.bias.copy_(torch.randn(C))
    x = (torch.randn(N, C) * 3 + 1).requires_grad_(True)
    out = ln(x)
    G = torch.randn_like(out)
    (out * G).sum().backward()
    safetensors_np.save(os.path.join(OUT, "transformer_layernorm.safetensors"),
                        {"x": f32(x), "weight": f32(ln.weight), "bias": f32(ln.bias), "out": f32(out), "G": f32(G),
                         "grad.x": f32(x.grad), "grad.weight": f32(ln.weight.grad), "grad.bias": f32(ln.bias.grad)})


def positional_encoding(T, C):
    # d2l PositionalEncoding, in float32 like the seeds
    P = torch.zeros((1, T, C))
    X = torch.arange(T, dtype=torch.float32).reshape(-1, 1) / torch.pow(
        10000, torch.arange(0, C, 2, dtype=torch.float32) / C)
    P[:, :, 0::2] = torch.sin(X)
    P[:, :, 1::2] = torch.cos(X)
    return P


class Seq2SeqTransformer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        C, pad = cfg["model_dim"], cfg["pad_id"]
        self.cfg = cfg
        if cfg["tie_embeddings"]:
            self.embedding = nn.Embedding(cfg["src_vocab"], C, padding_idx=pad)
            self.src_embedding = self.tgt_embedding = self.embedding
        else:
            self.src_embedding = nn.Embedding(cfg["src_vocab"], C, padding_idx=pad)
            self.tgt_embedding = nn.Embedding(cfg["tgt_vocab"], C, padding_idx=pad)
            self.output = nn.Linear(C, cfg["tgt_vocab"])
        if cfg["tie_embeddings"]:
            self.output_bias = nn.Parameter(torch.randn(cfg["tgt_vocab"]) * 0.1)
        self.transformer = nn.Transformer(
            d_model=C, nhead=cfg["heads"], num_encoder_layers=cfg["encoder_layers"],
            num_decoder_layers=cfg["decoder_layers"], dim_feedforward=cfg["ffn_dim"], dropout=0.0,
            activation=cfg["activation"], batch_first=True, norm_first=cfg["pre_ln"])
        with torch.no_grad():  # non-trivial LayerNorm parameters, so their use is tested
            for name, p in self.transformer.named_parameters():
                if "norm" in name:
                    p.add_(torch.randn_like(p) * 0.2)

    def forward(self, src, tgt, src_valid, tgt_valid):
        C = self.cfg["model_dim"]
        S, T = src.shape[1], tgt.shape[1]
        P = positional_encoding(max(S, T), C)
        x = self.src_embedding(src) * math.sqrt(C) + P[:, :S]
        y = self.tgt_embedding(tgt) * math.sqrt(C) + P[:, :T]
        src_pad = torch.arange(S)[None, :] >= src_valid[:, None]
        tgt_pad = torch.arange(T)[None, :] >= tgt_valid[:, None]
        causal = self.transformer.generate_square_subsequent_mask(T)
        h = self.transformer(x, y, tgt_mask=causal, src_key_padding_mask=src_pad, tgt_key_padding_mask=tgt_pad,
                             memory_key_padding_mask=src_pad)
        if self.cfg["tie_embeddings"]:
            return h @ self.embedding.weight.t() + self.output_bias
        return self.output(h)

    def attend_named_tensors(self, grad=False):
        get = (lambda p: p.grad) if grad else (lambda p: p)
        t = {}
        if self.cfg["tie_embeddings"]:
            t["embedding.weight"] = f32(get(self.embedding.weight))
        else:
            t["src_embedding.weight"] = f32(get(self.src_embedding.weight))
            t["tgt_embedding.weight"] = f32(get(self.tgt_embedding.weight))
        for side in ("encoder", "decoder"):
            stack = getattr(self.transformer, side)
            for i, layer in enumerate(stack.layers):
                prefix = f"{side}.layers.{i}."
                split_attention(prefix + "self_attn", layer.self_attn, t, grad)
                if side == "decoder":
                    split_attention(prefix + "cross_attn", layer.multihead_attn, t, grad)
                for name, p in layer.named_parameters():
                    if name.startswith(("linear", "norm")):
                        t[prefix + name] = f32(get(p))
            t[f"{side}.norm.weight"] = f32(get(stack.norm.weight))
            t[f"{side}.norm.bias"] = f32(get(stack.norm.bias))
        if self.cfg["tie_embeddings"]:
            t["output.bias"] = f32(get(self.output_bias))
        else:
            t["output.weight"] = f32(get(self.output.weight))
            t["output.bias"] = f32(get(self.output.bias))
        return t


def transformer_fixture():
    tensors, metadata = {}, {}
    cases = {
        "post": dict(model_dim=8, heads=2, encoder_layers=2, decoder_layers=2, ffn_dim=16, src_vocab=11,
                     tgt_vocab=13, max_len=16, dropout=0.0, tie_embeddings=False, pre_ln=False, final_norm=True,
                     bias=True, activation="relu", layernorm_eps=1e-5, pad_id=1),
        "pre": dict(model_dim=8, heads=2, encoder_layers=1, decoder_layers=2, ffn_dim=12, src_vocab=12,
                    tgt_vocab=12, max_len=16, dropout=0.0, tie_embeddings=True, pre_ln=True, final_norm=True,
                    bias=True, activation="gelu", layernorm_eps=1e-5, pad_id=1),
    }
    for seed, (case, cfg) in enumerate(cases.items()):
        torch.manual_seed(10 + seed)
        model = Seq2SeqTransformer(cfg)
        B, S, T = 2, 5, 4
        src = torch.randint(2, cfg["src_vocab"], (B, S))
        tgt = torch.randint(2, cfg["tgt_vocab"], (B, T))
        src_valid, tgt_valid = torch.tensor([5, 3]), torch.tensor([4, 3])
        src[1, 3:] = cfg["pad_id"]
        tgt[1, 3:] = cfg["pad_id"]
        labels = torch.randint(0, cfg["tgt_vocab"], (B, T))
        logits = model(src, tgt, src_valid, tgt_valid)
        logits.retain_grad()
        loss = nn.functional.cross_entropy(logits.reshape(-1, cfg["tgt_vocab"]), labels.reshape(-1))
        loss.backward()
        for name, value in model.attend_named_tensors().items():
            tensors[f"{case}.{name}"] = value
        for name, value in model.attend_named_tensors(grad=True).items():
            tensors[f"{case}.grad.{name}"] = value
        tensors.update({f"{case}.src": i32(src), f"{case}.tgt": i32(tgt), f"{case}.src_valid_lens": i32(src_valid),
                        f"{case}.tgt_valid_lens": i32(tgt_valid), f"{case}.logits": f32(logits),
                        f"{case}.dlogits": f32(logits.grad)})
        metadata[f"{case}.config"] = json.dumps(cfg)
    safetensors_np.save(os.path.join(OUT, "transformer_small.safetensors"), tensors, metadata)


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    mha_fixture()
    layernorm_fixture()
    transformer_fixture()
    for name in ("transformer_mha", "transformer_layernorm", "transformer_small"):
        path = os.path.join(OUT, name + ".safetensors")
        print(f"{path}: {os.path.getsize(path)} bytes")
