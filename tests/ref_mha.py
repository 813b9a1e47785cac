#!/usr/bin/env python3
"""ref_mha.py - an independent reference for `mhaviz export`.

Recomputes the whole multi-head attention pipeline of src/README.md in plain
Python (double precision, nested lists, no numpy) from the same seed, and
compares it with the JSON that `mhaviz export` printed:

  - config block, tensor names, shapes;
  - every value of every tensor, within 1e-4 (relative or absolute);
  - the strides PyTorch would give each tensor, and its offset;
  - which tensors share a storage (views) and which do not (copies);
  - the trace: step names, inputs/outputs, is_view, bytes_copied;
  - with --rope half|interleaved: Q_rope, K_rope and everything after them,
    and, when this interpreter has torch (Debian's /usr/bin/python3 with
    python3-torch), a second, independent PyTorch implementation of each
    layout written as its source writes it (HF's rotate_half; Meta's llama
    view_as_complex) for Q_rope, K_rope, scores, attn and out.
  - the toy values: x tenths; the weights tenths up to d_model 16 (hand-
    checkable), past it tenths times 1/sqrt(d_model) (src/README.md, The
    pipeline: "realistic numbers at every size").

Usage: ref_mha.py EXPORT.json [--batch N --seq N --d-model N --heads N
                               --kv-heads N --seed N --causal
                               --rope half|interleaved --rope-theta N]
The flags are the ones the export was run with (defaults as in README.md).
Exit 0 when everything agrees, 1 with a list of the differences otherwise.
"""
import json
import math
import sys

TOL = 1e-4
MASK64 = (1 << 64) - 1
TENTHS_MAX_D = 16   # engine/mha.h MHA_TENTHS_MAX_D


def weight_scale(D):
    """What the drawn tenths of the weights are multiplied by."""
    return 1.0 if D <= TENTHS_MAX_D else 1.0 / math.sqrt(D)


# --- the seeded draws, as documented in mha.h / mha.c -----------------------
class SplitMix64:
    """splitmix64 (Steele, Lea, Flood 2014) started at the seed."""

    def __init__(self, seed):
        self.s = seed & MASK64

    def next(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) & MASK64
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def tenth(self):
        """An integer in [-10, 10] divided by 10."""
        return ((self.next() % 21) - 10) / 10.0


def draw(rng, rows, cols):
    return [[rng.tenth() for _ in range(cols)] for _ in range(rows)]


# --- plain-list linear algebra (2-D lists: rows of floats) ------------------
def matmul(a, b):
    """(m, k) @ (k, n)"""
    bt = list(zip(*b))
    return [[sum(x * y for x, y in zip(row, col)) for col in bt] for row in a]


def transpose(a):
    return [list(r) for r in zip(*a)]


def softmax_rows(a, causal):
    out = []
    for i, row in enumerate(a):
        vals = [v if not (causal and j > i) else -math.inf for j, v in enumerate(row)]
        mx = max(vals)
        ex = [math.exp(v - mx) if v != -math.inf else 0.0 for v in vals]
        s = sum(ex)
        out.append([e / s for e in ex])
    return out


def cols(a, lo, hi):
    return [row[lo:hi] for row in a]


def flatten(x):
    if isinstance(x, list):
        for e in x:
            yield from flatten(e)
    else:
        yield x


def contiguous_strides(shape):
    st, s = [], 1
    for n in reversed(shape):
        st.append(s)
        s *= n
    return list(reversed(st))


# --- RoPE, as the issue states it: position p = token index, ---------------
# inv_freq[i] = theta^(-2i/dh), angle = p * inv_freq[i]; the pair of pair i is
# (x[i], x[i + dh/2]) in half, (x[2i], x[2i+1]) in interleaved, and
# out_a = a cos - b sin, out_b = b cos + a sin.
def rope_pairs(layout, dh):
    if layout == "half":
        return [(i, i + dh // 2) for i in range(dh // 2)]
    return [(2 * i, 2 * i + 1) for i in range(dh // 2)]


def rope_rows(rows, layout, theta):
    """rows: (S, dh), row p at position p."""
    out = []
    for p, row in enumerate(rows):
        dh = len(row)
        r = list(row)
        for i, (a, b) in enumerate(rope_pairs(layout, dh)):
            ang = p * theta ** (-2.0 * i / dh)
            c, s = math.cos(ang), math.sin(ang)
            r[a] = row[a] * c - row[b] * s
            r[b] = row[b] * c + row[a] * s
        out.append(r)
    return out


# --- the pipeline, head by head, written as a textbook loop -----------------
def reference(cfg):
    B, S, D = cfg["batch"], cfg["seq"], cfg["d_model"]
    H, KV, causal = cfg["heads"], cfg["kv_heads"], cfg["causal"]
    dh, G = D // H, H // KV
    rng = SplitMix64(cfg["seed"])
    # Drawn in this order: x, W_Q, W_K, W_V, W_O, each row-major.
    x = [draw(rng, S, D) for _ in range(B)]  # (B, S, D)
    ws = weight_scale(D)
    WQ = [[w * ws for w in r] for r in draw(rng, D, D)]
    WK = [[w * ws for w in r] for r in draw(rng, D, KV * dh)]
    WV = [[w * ws for w in r] for r in draw(rng, D, KV * dh)]
    WO = [[w * ws for w in r] for r in draw(rng, D, D)]

    Q = [matmul(x[b], WQ) for b in range(B)]  # (B, S, D)
    K = [matmul(x[b], WK) for b in range(B)]  # (B, S, KV*dh)
    V = [matmul(x[b], WV) for b in range(B)]

    def heads_of(T, n):  # (B, S, n*dh) -> (B, n, S, dh): head h is columns h*dh..
        return [[cols(T[b], h * dh, (h + 1) * dh) for h in range(n)] for b in range(B)]

    Qh, Kh, Vh = heads_of(Q, H), heads_of(K, KV), heads_of(V, KV)
    rope, theta = cfg.get("rope"), cfg.get("rope_theta")
    if rope:  # Q and K turned by position; V never
        Qr = [[rope_rows(Qh[b][h], rope, theta) for h in range(H)] for b in range(B)]
        Kr = [[rope_rows(Kh[b][k], rope, theta) for k in range(KV)] for b in range(B)]
    else:
        Qr, Kr = Qh, Kh
    scores, attn, head_out, noscale = [], [], [], []
    for b in range(B):
        sb, ab, ob, nb = [], [], [], []
        for h in range(H):
            kv = h // G  # grouped: query head h reads kv head h // G
            raw = matmul(Qr[b][h], transpose(Kr[b][kv]))
            sc = [[v / math.sqrt(dh) for v in r] for r in raw]
            a = softmax_rows(sc, causal)
            sb.append(sc)
            ab.append(a)
            nb.append(softmax_rows(raw, causal))  # the missing-scale bug
            ob.append(matmul(a, Vh[b][kv]))
        scores.append(sb)
        attn.append(ab)
        noscale.append(nb)
        head_out.append(ob)
    # concat: token s is [head 0 | head 1 | ...]
    concat = [[sum((head_out[b][h][s] for h in range(H)), []) for s in range(S)] for b in range(B)]
    out = [matmul(concat[b], WO) for b in range(B)]

    # K/V with every query head's kv head side by side: (B, S, D)
    Kfull = [[sum((Kr[b][h // G][s] for h in range(H)), []) for s in range(S)] for b in range(B)]
    Qfull = [[sum((Qr[b][h][s] for h in range(H)), []) for s in range(S)] for b in range(B)]
    single = []
    for b in range(B):
        sc = matmul(Qfull[b], transpose(Kfull[b]))
        sc = [[v / math.sqrt(D) for v in r] for r in sc]
        single.append([softmax_rows(sc, causal)])  # (1, S, S)

    def tok_major(T):  # (B, n, S, dh) -> (B, S, n, dh)
        n = len(T[0])
        return [[[T[b][h][s] for h in range(n)] for s in range(S)] for b in range(B)]

    def repeat(T):  # (B, KV, S, dh) -> (B, H, S, dh), each kv head G times
        return [[T[b][h // G] for h in range(H)] for b in range(B)]

    def expand(T):  # (B, KV, S, dh) -> (B, KV, G, S, dh)
        return [[[T[b][k] for _ in range(G)] for k in range(KV)] for b in range(B)]

    # Q viewed (B, H, S, dh) straight from its (B, S, D) bytes: the bug.
    qflat = list(flatten(Q))
    q_wrong = [[[qflat[((b * H + h) * S + s) * dh:((b * H + h) * S + s + 1) * dh]
                 for s in range(S)] for h in range(H)] for b in range(B)]

    # name: (values nested row-major, shape, PyTorch strides, offset)
    c = contiguous_strides
    t = {}
    t["x"] = (x, [B, S, D], c([B, S, D]))
    t["W_Q"] = (WQ, [D, D], c([D, D]))
    t["W_K"] = (WK, [D, KV * dh], c([D, KV * dh]))
    t["W_V"] = (WV, [D, KV * dh], c([D, KV * dh]))
    t["W_O"] = (WO, [D, D], c([D, D]))
    t["Q"] = (Q, [B, S, D], c([B, S, D]))
    t["K"] = (K, [B, S, KV * dh], c([B, S, KV * dh]))
    t["V"] = (V, [B, S, KV * dh], c([B, S, KV * dh]))
    t["Q_split"] = (tok_major(Qh), [B, S, H, dh], c([B, S, H, dh]))
    t["K_split"] = (tok_major(Kh), [B, S, KV, dh], c([B, S, KV, dh]))
    t["V_split"] = (tok_major(Vh), [B, S, KV, dh], c([B, S, KV, dh]))
    t["Q_heads"] = (Qh, [B, H, S, dh], [S * D, dh, D, 1])
    t["K_heads"] = (Kh, [B, KV, S, dh], [S * KV * dh, dh, KV * dh, 1])
    t["V_heads"] = (Vh, [B, KV, S, dh], [S * KV * dh, dh, KV * dh, 1])
    # K.unsqueeze(2) puts stride S*KV*dh on the new axis; expand keeps it when
    # G == 1 (size unchanged) and makes it 0 otherwise, as PyTorch does.
    g_stride = 0 if G > 1 else S * KV * dh
    if rope:  # new contiguous buffers; K_expand then views K_rope
        t["Q_rope"] = (Qr, [B, H, S, dh], c([B, H, S, dh]))
        t["K_rope"] = (Kr, [B, KV, S, dh], c([B, KV, S, dh]))
        kg = 0 if G > 1 else S * dh
        t["K_expand"] = (expand(Kr), [B, KV, G, S, dh], [KV * S * dh, S * dh, kg, dh, 1])
    else:
        t["K_expand"] = (expand(Kh), [B, KV, G, S, dh], [S * KV * dh, dh, g_stride, KV * dh, 1])
    t["V_expand"] = (expand(Vh), [B, KV, G, S, dh], [S * KV * dh, dh, g_stride, KV * dh, 1])
    t["scores"] = (scores, [B, H, S, S], c([B, H, S, S]))
    t["attn"] = (attn, [B, H, S, S], c([B, H, S, S]))
    t["head_out"] = (head_out, [B, H, S, dh], c([B, H, S, dh]))
    t["merged"] = (tok_major(head_out), [B, S, H, dh], [H * S * dh, dh, S * dh, 1])
    # .contiguous() returns the same tensor when it already is contiguous in
    # PyTorch's sense (size-1 dims ignored): with one head or one token the
    # transposed heads are, and nothing is copied.
    merged_strides = [H * S * dh, dh, S * dh, 1]
    copies = H > 1 and S > 1
    t["merged_contig"] = (tok_major(head_out), [B, S, H, dh],
                          c([B, S, H, dh]) if copies else merged_strides)
    t["concat"] = (concat, [B, S, D], c([B, S, D]))
    t["out"] = (out, [B, S, D], c([B, S, D]))
    t["attn_single"] = (single, [B, 1, S, S], c([B, 1, S, S]))
    t["Q_wrong"] = (q_wrong, [B, H, S, dh], c([B, H, S, dh]))
    t["K_repeat"] = (repeat(Kr), [B, H, S, dh], c([B, H, S, dh]))
    t["V_repeat"] = (repeat(Vh), [B, H, S, dh], c([B, H, S, dh]))
    t["attn_noscale"] = (noscale, [B, H, S, S], c([B, H, S, S]))
    return t


# Views of another tensor (same storage); every other pair must differ.
VIEWS = {
    "Q_split": "Q", "Q_heads": "Q", "Q_wrong": "Q",
    "K_split": "K", "K_heads": "K", "K_expand": "K",
    "V_split": "V", "V_heads": "V", "V_expand": "V",
    "merged": "head_out", "concat": "merged_contig",
}

# (name, inputs, output, is_view) per src/README.md's pipeline table, steps 0..10.
STEPS = [
    ("input", [], "x", False),
    ("project", ["x", "W_Q", "W_K", "W_V"], "Q", False),
    ("split heads", ["Q"], "Q_split", True),
    ("heads first", ["Q_split"], "Q_heads", True),
    ("scores", ["Q_heads", "K_heads"], "scores", False),
    ("softmax", ["scores"], "attn", False),
    ("weighted sum", ["attn", "V_heads"], "head_out", False),
    ("back to tokens", ["head_out"], "merged", True),
    ("make contiguous", ["merged"], "merged_contig", False),
    ("concat", ["merged_contig"], "concat", True),
    ("output projection", ["concat", "W_O"], "out", False),
]


ROPE_STEP = ("rope", ["Q_heads", "K_heads"], "Q_rope", False)


def steps_of(cfg):
    """The trace a run makes: with RoPE, the rope step after heads first and
    the scores read the rotated Q and K."""
    if not cfg.get("rope"):
        return list(STEPS)
    st = STEPS[:4] + [ROPE_STEP] + STEPS[4:]
    st[5] = ("scores", ["Q_rope", "K_rope"], "scores", False)
    return st


# --- a second reference in PyTorch, each layout as its source writes it -----
def torch_reference(cfg):
    """Q_rope, K_rope, scores, attn, out with torch (float64), or None when
    this interpreter has no torch.  half: HF transformers modeling_llama.py
    rotate_half / apply_rotary_pos_emb; interleaved: meta-llama/llama
    model.py apply_rotary_emb (view_as_complex of (.., dh/2, 2) pairs)."""
    try:
        import torch
    except ImportError:
        return None
    B, S, D = cfg["batch"], cfg["seq"], cfg["d_model"]
    H, KV = cfg["heads"], cfg["kv_heads"]
    dh, G, theta = D // H, H // KV, cfg["rope_theta"]
    rng = SplitMix64(cfg["seed"])
    f64 = torch.float64
    x = torch.tensor([draw(rng, S, D) for _ in range(B)], dtype=f64)
    ws = weight_scale(D)  # the engine's: tenths, times 1/sqrt(D) past d_model 16
    WQ, WK, WV, WO = (torch.tensor(draw(rng, D, n), dtype=f64) * ws for n in (D, KV * dh, KV * dh, D))
    q = (x @ WQ).view(B, S, H, dh).transpose(1, 2)
    k = (x @ WK).view(B, S, KV, dh).transpose(1, 2)
    v = (x @ WV).view(B, S, KV, dh).transpose(1, 2)
    inv_freq = 1.0 / (theta ** (torch.arange(0, dh, 2, dtype=f64) / dh))
    freqs = torch.outer(torch.arange(S, dtype=f64), inv_freq)  # (S, dh/2)
    if cfg["rope"] == "half":
        def rotate_half(t):
            t1, t2 = t[..., : t.shape[-1] // 2], t[..., t.shape[-1] // 2:]
            return torch.cat((-t2, t1), dim=-1)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos(), emb.sin()
        qr, kr = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
    else:
        cis = torch.polar(torch.ones_like(freqs), freqs)  # (S, dh/2) complex

        def rot(t):
            tc = torch.view_as_complex(t.contiguous().reshape(*t.shape[:-1], -1, 2))
            return torch.view_as_real(tc * cis).flatten(-2)
        qr, kr = rot(q), rot(k)
    kx = kr.repeat_interleave(G, dim=1)
    vx = v.repeat_interleave(G, dim=1)
    sc = qr @ kx.transpose(-2, -1) / math.sqrt(dh)
    if cfg["causal"]:
        sc = sc.masked_fill(torch.ones(S, S, dtype=torch.bool).triu(1), float("-inf"))
    at = torch.softmax(sc, dim=-1)
    out = (at @ vx).transpose(1, 2).contiguous().view(B, S, D) @ WO
    return {"Q_rope": qr, "K_rope": kr, "scores": sc, "attn": at, "out": out}


def close(a, b):
    return abs(a - b) <= TOL or abs(a - b) <= TOL * abs(b)


def parse_args(argv):
    if not argv:
        sys.exit(__doc__)
    cfg = {"batch": 1, "seq": 4, "d_model": 8, "heads": 2, "kv_heads": None,
           "seed": 1, "causal": False, "rope": None, "rope_theta": None}
    theta = 10000.0
    path, i = argv[0], 1
    while i < len(argv):
        a = argv[i]
        if a == "--causal":
            cfg["causal"] = True
        elif a == "--rope" and i + 1 < len(argv):
            cfg["rope"] = argv[i + 1]
            i += 1
        elif a == "--rope-theta" and i + 1 < len(argv):
            theta = float(argv[i + 1])
            i += 1
        elif a.startswith("--") and a[2:].replace("-", "_") in cfg and i + 1 < len(argv):
            cfg[a[2:].replace("-", "_")] = int(argv[i + 1])
            i += 1
        else:
            sys.exit("ref_mha.py: unknown argument %r" % a)
        i += 1
    if cfg["kv_heads"] is None:
        cfg["kv_heads"] = cfg["heads"]
    if cfg["rope"]:
        cfg["rope_theta"] = theta
    return path, cfg


def compare(doc, cfg):
    errs = []
    views = dict(VIEWS)
    if cfg.get("rope"):
        views["K_expand"] = "K_rope"
    copies = cfg["heads"] > 1 and cfg["seq"] > 1  # see merged_contig in reference()
    if not copies:
        views["merged_contig"] = views["concat"] = "head_out"

    def bad(msg):
        errs.append(msg)

    want_cfg = dict(cfg, d_head=cfg["d_model"] // cfg["heads"])
    if doc.get("config") != want_cfg:
        bad("config %r, expected %r" % (doc.get("config"), want_cfg))
    ref = reference(cfg)
    tens = doc["tensors"]
    for name in ref:
        if name not in tens:
            bad("tensor %s missing" % name)
    for name, (vals, shape, strides) in ref.items():
        t = tens.get(name)
        if t is None:
            continue
        for key in ("shape", "strides", "offset", "storage", "contiguous", "data"):
            if key not in t:
                bad("%s: no %r" % (name, key))
        if t.get("shape") != shape:
            bad("%s: shape %s, expected %s" % (name, t.get("shape"), shape))
            continue
        if t.get("strides") != strides:
            bad("%s: strides %s, PyTorch gives %s" % (name, t.get("strides"), strides))
        if t.get("offset") != 0:
            bad("%s: offset %s, expected 0" % (name, t.get("offset")))
        contig = strides == contiguous_strides(shape) or all(
            n == 1 or s == e for n, s, e in zip(shape, strides, contiguous_strides(shape)))
        if t.get("contiguous") != contig:
            bad("%s: contiguous %s, expected %s" % (name, t.get("contiguous"), contig))
        want = list(flatten(vals))
        got = t.get("data", [])
        if len(got) != len(want):
            bad("%s: %d values, expected %d" % (name, len(got), len(want)))
            continue
        shown = 0
        for i, (g, w) in enumerate(zip(got, want)):
            if g is None or not close(g, w):
                if shown < 3:
                    bad("%s[flat %d]: %r, reference %r" % (name, i, g, w))
                shown += 1
        if shown > 3:
            bad("%s: %d values differ in all" % (name, shown))

    # Storage: a view shares its base's storage; nothing else shares one.
    sto = {n: t.get("storage") for n, t in tens.items()}
    for view, base in views.items():
        if view in sto and base in sto and sto[view] != sto[base]:
            bad("%s is a view of %s but has storage %s, not %s" % (view, base, sto[view], sto[base]))
    root = {n: views.get(n, n) for n in ref}
    for a in ref:
        for b in ref:
            if a < b and root[a] != root[b] and a in sto and b in sto and sto[a] == sto[b]:
                bad("%s and %s share storage %s but neither views the other" % (a, b, sto[a]))

    # Trace: as src/README.md's table; the only bytes copied are step 8's B*S*D floats
    # (none when the transposed heads already are contiguous: H == 1 or S == 1).
    # With RoPE the rope step also counts its two new buffers, Q_rope and K_rope.
    steps = doc.get("steps", [])
    trace = steps_of(cfg)
    if len(steps) != len(trace):
        bad("%d steps, expected %d" % (len(steps), len(trace)))
    B, S, dh = cfg["batch"], cfg["seq"], cfg["d_model"] // cfg["heads"]
    nbytes = B * S * cfg["d_model"] * 4
    rbytes = B * (cfg["heads"] + cfg["kv_heads"]) * S * dh * 4
    for i, (st, (name, ins, out, view)) in enumerate(zip(steps, trace)):
        contig = name == "make contiguous"
        if contig and not copies:
            view = True
        want = {"index": i, "name": name, "inputs": ins, "output": out, "is_view": view,
                "bytes_copied": nbytes if contig and copies else rbytes if name == "rope" else 0}
        for k, v in want.items():
            if st.get(k) != v:
                bad("step %d (%s): %s = %r, expected %r" % (i, name, k, st.get(k), v))
        if not isinstance(st.get("code"), str) or not st.get("code"):
            bad("step %d: no code line" % i)
        if view and sto.get(out) != sto.get(ins[0]):
            bad("step %d: is_view but %s and %s have different storages" % (i, out, ins[0]))

    # The rotation again, in PyTorch, when there is torch to run it.
    if cfg.get("rope"):
        tref = torch_reference(cfg)
        for name, tt in (tref or {}).items():
            want = tt.flatten().tolist()
            got = tens.get(name, {}).get("data", [])
            nbad = sum(1 for g, w in zip(got, want) if g is None or not close(g, w))
            if len(got) != len(want) or nbad:
                bad("%s: %d of %d values differ from the PyTorch reference" % (name, nbad, len(want)))
        cfg["_torch"] = tref is not None

    # Every input value is a multiple of 0.1 in [-1, 1]; so is every weight
    # once divided by the scale of its size.
    for name in ("x", "W_Q", "W_K", "W_V", "W_O"):
        ws = 1.0 if name == "x" else weight_scale(cfg["d_model"])
        for v in tens.get(name, {}).get("data", []):
            t = None if v is None else v / ws
            if t is None or abs(t) > 1 + 1e-5 or abs(t * 10 - round(t * 10)) > 1e-4:
                bad("%s: value %r is not a multiple of 0.1 in [-1, 1] times %g" % (name, v, ws))
                break
    return errs


def main():
    path, cfg = parse_args(sys.argv[1:])
    with open(path) as f:
        doc = json.load(f)
    errs = compare(doc, cfg)
    label = " ".join("%s=%s" % kv for kv in sorted(cfg.items()) if kv[0][0] != "_")
    if errs:
        print("ref_mha.py: %s: %d differences" % (label, len(errs)))
        for e in errs[:40]:
            print("  " + e)
        return 1
    n = sum(len(t["data"]) for t in doc["tensors"].values())
    also = ", and with PyTorch's rotation" if cfg.get("_torch") else ""
    print("ref_mha.py: %s: %d tensors, %d values agree within %g%s"
          % (label, len(doc["tensors"]), n, TOL, also))
    return 0


if __name__ == "__main__":
    sys.exit(main())
