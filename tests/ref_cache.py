#!/usr/bin/env python3
"""ref_cache.py - an independent PyTorch reference for the KV-cache forms of
`mhaviz export`: MLA (--mla R [--rope-dim dr]) and the rolling window
(--causal --window W).

It redraws x and the weights from the seed (the stream documented in
engine/mha.h and engine/mla.h: x, W_Q, W_K, W_V, W_O, then W_DKV, W_UK, W_UV,
W_KR, W_QR), recomputes in float64 with torch as DeepSeek-V3's
inference/model.py and Mistral's band mask write it, and compares:

  --mla:    every tensor of "mla" (the weights, c_kv, k_pe, q_nope, q_pe,
            k_nope, v, scores, attn, out, q_absorbed, scores_absorbed), the
            absorbed scores against the expanded ones (torch's einsum, never
            expanding K), and the cache bytes per token, (R + dr) x 4 and
            MHA's 2 x H x dh x 4;
  --window: the run's scores, attn and out against torch's attention with
            the band mask (query i sees key j iff i - W < j <= i).

Usage: ref_cache.py EXPORT.json [--batch N --seq N --d-model N --heads N
           --kv-heads N --seed N --causal --rope half|interleaved
           --rope-theta N --mla R --rope-dim dr --window W]
Exit 0 when all agree ("PyTorch: N tensors agree"), 1 with the differences,
77 when this interpreter has no torch (a skip).
"""
import json
import math
import sys

from ref_mha import SplitMix64  # the seeded draws, as mha.c makes them

try:
    import torch
except ImportError:
    print("ref_cache.py: no torch in this interpreter: skipped")
    sys.exit(77)

TOL = 1e-4
f64 = torch.float64


def draw(rng, *shape):
    """The next tenths of the seeded stream (ref_mha.py's SplitMix64), as a
    float64 tensor of this shape."""
    n = math.prod(shape)
    return torch.tensor([rng.tenth() for _ in range(n)], dtype=f64).view(*shape)


def parse(argv):
    cfg = {"batch": 1, "seq": 4, "d_model": 8, "heads": 2, "kv_heads": None, "seed": 1,
           "causal": False, "rope": None, "rope_theta": 10000.0, "mla": None,
           "rope_dim": None, "window": None}
    path, i = argv[0], 1
    while i < len(argv):
        a = argv[i]
        key = a[2:].replace("-", "_")
        if a == "--causal":
            cfg["causal"] = True
        elif a == "--rope":
            cfg["rope"] = argv[i + 1]
            i += 1
        elif a == "--rope-theta":
            cfg["rope_theta"] = float(argv[i + 1])
            i += 1
        elif key in cfg:
            cfg[key] = int(argv[i + 1])
            i += 1
        else:
            sys.exit("ref_cache.py: unknown argument %r" % a)
        i += 1
    if cfg["kv_heads"] is None:
        cfg["kv_heads"] = cfg["heads"]
    return path, cfg


def rope(t, layout, theta):
    """t (..., S, d) rotated by position along -2: HF rotate_half (half) or
    Meta's llama view_as_complex (interleaved)."""
    S, d = t.shape[-2], t.shape[-1]
    inv_freq = 1.0 / (theta ** (torch.arange(0, d, 2, dtype=f64) / d))
    freqs = torch.outer(torch.arange(S, dtype=f64), inv_freq)
    if layout == "half":
        emb = torch.cat((freqs, freqs), dim=-1)
        t1, t2 = t[..., : d // 2], t[..., d // 2:]
        return t * emb.cos() + torch.cat((-t2, t1), dim=-1) * emb.sin()
    cis = torch.polar(torch.ones_like(freqs), freqs)
    tc = torch.view_as_complex(t.contiguous().reshape(*t.shape[:-1], -1, 2))
    return torch.view_as_real(tc * cis).flatten(-2)


def mask_of(cfg, S):
    """True where attention is refused: the causal mask, then the band."""
    i = torch.arange(S).view(S, 1)
    j = torch.arange(S).view(1, S)
    refuse = torch.zeros(S, S, dtype=torch.bool)
    if cfg["causal"]:
        refuse |= j > i
    if cfg["window"]:
        refuse |= j <= i - cfg["window"]
    return refuse


def reference(cfg):
    B, S, D, H, KV = cfg["batch"], cfg["seq"], cfg["d_model"], cfg["heads"], cfg["kv_heads"]
    dh = D // H
    rng = SplitMix64(cfg["seed"])
    x = draw(rng, B, S, D)
    # the weights: tenths, times 1/sqrt(D) past d_model 16 (engine/mha.h MHA_TENTHS_MAX_D;
    # MLA's own weights by the same rule)
    ws = 1.0 if D <= 16 else 1.0 / math.sqrt(D)
    WQ, WK, WV, WO = (draw(rng, D, D) * ws, draw(rng, D, KV * dh) * ws,
                      draw(rng, D, KV * dh) * ws, draw(rng, D, D) * ws)
    refuse = mask_of(cfg, S)
    out = {}
    # the pipeline with GQA's repeat_kv, RoPE if on, the mask (band included)
    q = (x @ WQ).view(B, S, H, dh).transpose(1, 2)
    k = (x @ WK).view(B, S, KV, dh).transpose(1, 2)
    v = (x @ WV).view(B, S, KV, dh).transpose(1, 2)
    if cfg["rope"]:
        q, k = rope(q, cfg["rope"], cfg["rope_theta"]), rope(k, cfg["rope"], cfg["rope_theta"])
    k, v = k.repeat_interleave(H // KV, dim=1), v.repeat_interleave(H // KV, dim=1)
    sc = q @ k.transpose(-2, -1) / math.sqrt(dh)
    at = torch.softmax(sc.masked_fill(refuse, float("-inf")), dim=-1)
    out["run"] = {"scores": sc, "attn": at,
                  "out": (at @ v).transpose(1, 2).contiguous().view(B, S, D) @ WO}
    if cfg["mla"] is None:
        return out
    R = cfg["mla"]
    dr = cfg["rope_dim"] or max(2, (dh // 2) - (dh // 2) % 2)
    layout = cfg["rope"] or "half"
    W = {"W_DKV": draw(rng, D, R), "W_UK": draw(rng, R, H * dh), "W_UV": draw(rng, R, H * dh),
         "W_KR": draw(rng, D, dr), "W_QR": draw(rng, D, H * dr)}
    W = {name: w * ws for name, w in W.items()}
    c_kv = x @ W["W_DKV"]
    k_pe = rope(x @ W["W_KR"], layout, cfg["rope_theta"])
    q_nope = (x @ WQ).view(B, S, H, dh).transpose(1, 2)
    q_pe = rope((x @ W["W_QR"]).view(B, S, H, dr).transpose(1, 2), layout, cfg["rope_theta"])
    k_nope = (c_kv @ W["W_UK"]).view(B, S, H, dh).transpose(1, 2)
    vv = (c_kv @ W["W_UV"]).view(B, S, H, dh).transpose(1, 2)
    scale = 1.0 / math.sqrt(dh + dr)
    scores = (q_nope @ k_nope.transpose(-2, -1) + q_pe @ k_pe.unsqueeze(1).transpose(-2, -1)) * scale
    attn = torch.softmax(scores.masked_fill(refuse, float("-inf")), dim=-1)
    o = (attn @ vv).transpose(1, 2).contiguous().view(B, S, D) @ WO
    # absorbed, as DeepSeek-V3's attn_impl "absorb": q folded with W_UK's head
    # slices, dotted with the cached latent
    q_abs = torch.einsum("bhsd,rhd->bhsr", q_nope, W["W_UK"].view(R, H, dh))
    sc_abs = (torch.einsum("bhsr,btr->bhst", q_abs, c_kv)
              + torch.einsum("bhsd,btd->bhst", q_pe, k_pe)) * scale
    out["mla"] = dict(W, c_kv=c_kv, k_pe=k_pe, q_nope=q_nope, q_pe=q_pe, k_nope=k_nope, v=vv,
                      scores=scores, attn=attn, out=o, q_absorbed=q_abs, scores_absorbed=sc_abs)
    out["bytes"] = ((R + dr) * 4, 2 * H * dh * 4)
    out["rd"] = dr
    out["expanded_vs_absorbed"] = (scores - sc_abs).abs().max().item()
    return out


def agree(name, got, want, errs):
    if list(got["shape"]) != list(want.shape):
        errs.append("%s: shape %s, torch %s" % (name, got["shape"], list(want.shape)))
        return
    a = torch.tensor(got["data"], dtype=f64).view(*want.shape)
    d = (a - want).abs()
    bad = d > TOL * torch.clamp(want.abs(), min=1.0)
    if bad.any():
        errs.append("%s: %d values differ, largest %g" % (name, int(bad.sum()), d.max().item()))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    path, cfg = parse(sys.argv[1:])
    doc = json.load(open(path))
    ref = reference(cfg)
    errs, n = [], 0
    for name, want in ref["run"].items():
        agree(name, doc["tensors"][name], want, errs)
        n += 1
    if cfg["window"] and doc["config"].get("window") != cfg["window"]:
        errs.append("config.window %r, want %d" % (doc["config"].get("window"), cfg["window"]))
    if cfg["mla"] is not None:
        m = doc.get("mla")
        if not m:
            errs.append("no \"mla\" object")
        else:
            for name, want in ref["mla"].items():
                if name not in m["tensors"]:
                    errs.append("mla tensor %s missing" % name)
                    continue
                agree("mla." + name, m["tensors"][name], want, errs)
                n += 1
            if set(m["tensors"]) != set(ref["mla"]):
                errs.append("mla tensors %s" % sorted(set(m["tensors"]) ^ set(ref["mla"])))
            got = (m["cache_bytes_per_token"], m["mha_cache_bytes_per_token"])
            if got != ref["bytes"]:
                errs.append("cache bytes per token %s, want %s" % (got, ref["bytes"]))
            if (doc["config"].get("mla"), doc["config"].get("rope_dim")) != (cfg["mla"], ref["rd"]):
                errs.append("config mla/rope_dim %r/%r" % (doc["config"].get("mla"),
                                                           doc["config"].get("rope_dim")))
            if ref["expanded_vs_absorbed"] > 1e-9:
                errs.append("torch: expanded and absorbed differ by %g" % ref["expanded_vs_absorbed"])
    if errs:
        print("\n".join(errs))
        sys.exit(1)
    print("PyTorch %s: %d tensors agree" % (torch.__version__, n))


main()
