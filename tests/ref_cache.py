#!/usr/bin/env python3
"""ref_cache.py - an independent PyTorch reference for the KV-cache forms of
`mhaviz export`: MLA (--mla R [--rope-dim dr]), the rolling window
(--causal --window W) and a batch sharing a prompt prefix (--shared-prefix
P); and, with --decode, for the paged pool of `mhaviz decode --plain --paged
--shared-prefix P`.

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
            the band mask (query i sees key j iff i - W < j <= i);
  --shared-prefix: x with every sequence's first P tokens sequence 0's, the
            run against it, and (causal) what makes storing the prefix's K
            and V once honest: every sequence's K, V and out rows < P equal
            sequence 0's.

With --decode, the file is DECODE.txt in place of EXPORT.json (the text of `mhaviz decode
--plain --paged --block-size N --shared-prefix P --prompt n`, same config
flags), it replays vLLM's block manager in plain Python (a free list handed
out in order, a reference count per block, copy-on-write of a block others
still point at when a sequence appends to it) and checks the block tables,
the reference counts, each copy-on-write and its bytes, and the pool's
total against the issue's formula floor(P/N) + sum(ceil(L/N) - floor(P/N)).

Usage: ref_cache.py EXPORT.json [--batch N --seq N --d-model N --heads N
           --kv-heads N --seed N --causal --rope half|interleaved
           --rope-theta N --mla R --rope-dim dr --window W --shared-prefix P]
       ref_cache.py DECODE.txt --decode --batch N --seq N --kv-heads N
           --d-model N --heads N --block-size N --shared-prefix P --prompt n
Exit 0 when all agree ("PyTorch: N tensors agree"), 1 with the differences,
77 when this interpreter has no torch (a skip; --decode needs none).
"""
import json
import math
import sys

from ref_mha import SplitMix64  # the seeded draws, as mha.c makes them

try:
    import torch
    f64 = torch.float64
except ImportError:  # --decode needs none; the rest skips
    torch = None

TOL = 1e-4
MASK64 = (1 << 64) - 1


def draw(rng, *shape):
    """The next tenths of the seeded stream (ref_mha.py's SplitMix64), as a
    float64 tensor of this shape."""
    n = math.prod(shape)
    return torch.tensor([rng.tenth() for _ in range(n)], dtype=f64).view(*shape)


def parse(argv):
    cfg = {"batch": 1, "seq": 4, "d_model": 8, "heads": 2, "kv_heads": None, "seed": 1,
           "causal": False, "rope": None, "rope_theta": 10000.0, "mla": None,
           "rope_dim": None, "window": None, "shared_prefix": 0, "block_size": None,
           "prompt": None, "decode": False}
    path, i = argv[0], 1
    while i < len(argv):
        a = argv[i]
        key = a[2:].replace("-", "_")
        if a == "--causal":
            cfg["causal"] = True
        elif a == "--decode":
            cfg["decode"] = True
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
    P = cfg["shared_prefix"]
    x[1:, :P] = x[0, :P].clone()  # the same draws, then the batch shares its prefix
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
    y = (at @ v).transpose(1, 2).contiguous().view(B, S, D) @ WO
    out["run"] = {"scores": sc, "attn": at, "out": y}
    if P:
        out["run"]["x"] = x
        if cfg["causal"]:  # a row < P sees only the prefix: the same in every sequence
            out["prefix_spread"] = max((t[:, :, :P] - t[:1, :, :P]).abs().max().item()
                                       for t in (k, v)) if B > 1 else 0.0
            out["prefix_spread"] = max(out["prefix_spread"],
                                       (y[:, :P] - y[:1, :P]).abs().max().item())
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


def block_manager(B, S, N, P, prompt):
    """vLLM's block manager for B sequences of S tokens sharing P, prefilled
    with `prompt` tokens then one at a time: (tables, refs, cows, used) where
    cows lists (step start, src, dst) in order."""
    tables, refs, cows, nxt = [[] for _ in range(B)], {}, [], 0

    def fresh():
        nonlocal nxt
        nxt += 1
        refs[nxt - 1] = 1
        return nxt - 1

    steps = [(0, prompt)] + [(t, 1) for t in range(prompt, S)]
    for start, n in steps:
        for p in range(start, start + n):
            for b in range(B):
                if p < P:  # the prefix: sequence 0 writes it, the others fork its blocks
                    if p % N == 0:
                        if b == 0:
                            tables[0].append(fresh())
                        else:
                            tables[b].append(tables[0][p // N])
                            refs[tables[0][p // N]] += 1
                    continue
                if p % N == 0:
                    tables[b].append(fresh())
                elif refs[tables[b][-1]] > 1:  # append to a shared block: copy on write
                    src = tables[b][-1]
                    refs[src] -= 1
                    tables[b][-1] = fresh()
                    cows.append((start, src, tables[b][-1]))
    return tables, refs, cows, nxt


def check_decode(path, cfg):
    B, S, N, P = cfg["batch"], cfg["seq"], cfg["block_size"], cfg["shared_prefix"]
    KV, dh = cfg["kv_heads"], cfg["d_model"] // cfg["heads"]
    prompt = cfg["prompt"] or max(1, S // 2)
    text = open(path).read().splitlines()
    tables, refs, cows, used = block_manager(B, S, N, P, prompt)
    errs = []
    for b in range(B):
        want = "block table of sequence %d: %s" % (b, " ".join(map(str, tables[b])))
        if want not in text:
            errs.append("no line %r" % want)
    if P:
        want = "reference counts: %s " % " ".join("%d:%d" % (i, refs[i]) for i in range(used))
        if not any(line.startswith(want) for line in text):
            errs.append("no line starting %r" % want)
    tail, tok = P % N, 2 * KV * dh * 4
    got = [line.strip() for line in text if line.strip().startswith("copy-on-write:")]
    want = ["copy-on-write: block %d -> %d (%d prefix token%s, %d B)"
            % (s_, d_, tail, "" if tail == 1 else "s", tail * tok) for _, s_, d_ in cows]
    if got != want:
        errs.append("copy-on-write lines %r, want %r" % (got, want))
    formula = P // N + sum(-(-S // N) - P // N for _ in range(B))
    pending = (max(refs[t[P // N]] for t in tables) - 1) if tail and len(tables[0]) > P // N else 0
    if used + pending != formula:
        errs.append("replay: %d blocks + %d pending copies, formula %d" % (used, pending, formula))
    want = "pool: %d blocks handed out (kv --paged%s: %d)" % (used, " --shared-prefix" if P else "",
                                                            formula)
    if not any(line.startswith(want) for line in text):
        errs.append("no line starting %r" % want)
    if not any(line.endswith("largest difference 0") for line in text):
        errs.append("the rows do not equal the full pass exactly")
    if errs:
        print("\n".join(errs))
        sys.exit(1)
    print("vLLM's block manager replayed: %d tables, %d blocks, %d copies on write agree"
          % (B, used, len(cows)))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    path, cfg = parse(sys.argv[1:])
    if cfg["decode"]:
        return check_decode(path, cfg)
    if torch is None:
        print("ref_cache.py: no torch in this interpreter: skipped")
        sys.exit(77)
    doc = json.load(open(path))
    ref = reference(cfg)
    errs, n = [], 0
    for name, want in ref["run"].items():
        agree(name, doc["tensors"][name], want, errs)
        n += 1
    if doc["config"].get("shared_prefix", 0) != cfg["shared_prefix"]:
        errs.append("config.shared_prefix %r, want %d" % (doc["config"].get("shared_prefix"),
                                                         cfg["shared_prefix"]))
    if ref.get("prefix_spread", 0) > 1e-9:
        errs.append("torch: the sequences' prefix rows differ by %g" % ref["prefix_spread"])
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
