#!/usr/bin/env python3
"""ref_play_math.py - the playground's arithmetic against PyTorch 1.13 itself.

The statements the interpreter runs attention with (float literals,
+ - * / @ with broadcasting, the comparisons, softmax, masked_fill,
torch.tril/triu, math.sqrt/sqrt, float('-inf'), .float()/.long()/.bool(),
cos/sin/exp/sqrt/rsqrt, ** and torch.outer: issue 18's RoPE)
are generated at random over random shapes (transposed and expanded inputs
too, and sizes that do not broadcast), run through one
`mhaviz play --json --values` and through torch (the program's imports:
import math; import torch.nn.functional as F; from math import sqrt;
from torch.nn.functional import softmax), and compared statement by
statement: ok or error and the error's first line, shape, strides, dtype,
whether the result is its input itself, a view or a new storage (a computed
result is new, 0 bytes copied), and the values (a matmul result's strides
on its size-1 dims aside: PyTorch's BLAS folding picks them) (float32: within 1e-5
relative, 1e-6 absolute; int64 and bool exactly).

Usage: /usr/bin/python3 ref_play_math.py BIN [--seed N] [--count N] [-v]
Exit 0 when everything agrees, 1 with the differences listed (2: no torch).
"""
import json
import math
import random
import subprocess
import sys

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    print("ref_play_math.py: needs torch (Debian python3-torch, /usr/bin/python3)")
    sys.exit(2)

FIXED = [
    "x = torch.arange(24).view(1, 4, 6).float() / 10 - 1",
    "W = torch.arange(36).view(6, 6).float() / 36",
    "Q = x @ W",
    "Qh = Q.view(1, 4, 2, 3).transpose(1, 2)",
    "scores = Qh @ Qh.transpose(-2, -1) / sqrt(3)",
    "mask = torch.tril(torch.ones(4, 4))",
    "masked = scores.masked_fill(mask == 0, float('-inf'))",
    "attn = torch.softmax(masked, dim=-1)",
    "F.softmax(masked, dim=-1)",
    "attn2 = masked.softmax(-1)",
    "out = (attn @ Qh).transpose(1, 2).contiguous().view(1, 4, 6)",
    "torch.matmul(out, W)",
    "out.matmul(W)",
    "band = torch.ones(4, 4).tril().triu(-1)",
    "torch.triu(torch.ones(4, 4), diagonal=1)",
    "scores.masked_fill(band == 0, -math.inf)",
    "0.5", "1e-9", "2.", "1 / 4", "7 // 2", "-7 % 3", "2.5 * 4", "1 / 0", "1.0 / 0",
    "math.sqrt(2)", "sqrt(16)", "math.sqrt(-1)", "float('inf')", "float(3)", "-math.inf",
    "1 < 2", "2 == 2.0", "3 >= 4",
    "i = torch.arange(6)", "i / 2", "i * 2", "i + 0.5", "i < 3", "i == 2", "(i < 3).long()",
    "b = i > 2", "b + b", "b * b", "b + 1", "b - b", "b - 1", "-b", "b / b", "b.float()",
    "i.float()", "x.float()", "x.long()", "x.bool()",
    "i.softmax(0)", "torch.softmax(x, dim=-1)", "x.softmax(dim=1)", "x.softmax(3)",
    "i @ i", "x @ i", "i.float() @ torch.ones(6)", "torch.ones(3) @ torch.ones(4)",
    "torch.ones(2, 3) @ torch.ones(2, 3)", "torch.ones(3, 4) @ torch.ones(3)",
    "torch.ones(2, 3, 4) @ torch.ones(3, 4, 5)", "torch.ones(2, 3, 4) @ torch.ones(2, 5, 4)",
    "torch.ones(2, 1, 3, 4) @ torch.ones(5, 4, 2)", "torch.ones(3, 4) @ torch.ones(2, 4, 5)",
    "torch.ones(4) @ torch.ones(2, 4, 5)", "torch.ones(2, 3, 4) @ torch.ones(4)",
    "torch.ones(0, 3) @ torch.ones(3, 0)", "torch.ones(2, 0) @ torch.ones(0, 3)",
    "x.masked_fill(torch.ones(6) > 0, 2.0)", "torch.ones(6).masked_fill(x > 0, 1.5)",
    "i.masked_fill(i > 2, float('-inf'))", "i.masked_fill(i > 2, 1.5)", "x.masked_fill(x, 1.0)",
    "x.masked_fill(x > 0, x)", "x + torch.ones(5)", "x.t() * 2",
    # issue 18: the elementwise math RoPE is written in, and **
    "torch.cos(x)", "torch.sin(x)", "torch.exp(x)", "torch.sqrt(x)", "torch.rsqrt(x)",
    "x.cos()", "x.sin()", "x.exp()", "x.sqrt()", "x.rsqrt()", "x.t().cos()", "i.cos()",
    "torch.sqrt(i)", "b.exp()", "torch.sin(b)", "x.cos(1)", "torch.cos(2.0)",
    "2 ** 10", "-2 ** 2", "2 ** -1", "2.0 ** 0.5", "(-2) ** 2", "2 ** 3 ** 2", "0 ** 0",
    "0.0 ** -1", "2 ** 62", "10 ** 0.5 * 2", "-x ** 2",
    "x ** 2", "x ** 3", "x ** 0.5", "x ** -0.5", "x ** -1", "x ** -2", "x ** 0", "x ** 1.5",
    "x.t() ** 2", "i ** 2", "i ** 2.0", "i ** -1", "i ** 0", "b ** 2", "2 ** i", "2.0 ** i",
    "10000.0 ** (torch.arange(0, 8, 2).float() / 8)", "10000 ** (torch.arange(0, 8, 2) / 8)",
    "x ** x", "x ** i", "i ** i", "x ** torch.ones(5)",
    "t = torch.arange(4, dtype=torch.float32)", "torch.arange(0, 8, 2, dtype=torch.float32)",
    "torch.arange(3, dtype=torch.int64)", "torch.arange(3, dtype=torch.bool)",
    "inv_freq = 1.0 / (10000 ** (torch.arange(0, 8, 2).float() / 8))",
    "freqs = torch.outer(t, inv_freq)", "torch.outer(i, i)", "torch.outer(i, t)",
    "torch.outer(x, t)", "torch.outer(t, 2)",
    "emb = torch.cat((freqs, freqs), dim=-1)", "emb.cos()", "emb.sin()",
    "freqs.repeat_interleave(2, dim=-1).cos()",
]


def rand_shape(r, nd=None):
    nd = r.randint(0, 4) if nd is None else nd
    return [r.randint(1, 4) for _ in range(nd)]


def numel(shape):
    p = 1
    for s in shape:
        p *= s
    return p


def make_tensor(r, name, shape, env):
    """A statement making a tensor of this shape with a varied layout."""
    n = numel(shape)
    kind = r.random()
    base = "torch.arange(%d)" % n
    if r.random() < 0.6:
        base = "(%s.float() / %d - 0.5)" % (base, r.choice([3, 7, 10]))
    if len(shape) >= 2 and kind < 0.3:  # transposed: the same shape, other strides
        sw = list(shape)
        sw[-1], sw[-2] = sw[-2], sw[-1]
        src = "%s.view(%s).transpose(-2, -1)" % (base, ", ".join(map(str, sw)))
    elif shape and kind < 0.45 and shape[0] > 1:  # expanded: stride 0 on dim 0
        src = "%s.view(%s).expand(%s)" % ("torch.arange(%d)" % numel(shape[1:]) if shape[1:] else "torch.arange(1)",
                                          ", ".join(map(str, [1] + shape[1:])), ", ".join(map(str, shape)))
        if r.random() < 0.5:
            src += ".float() / 3"
    else:
        src = "%s.view(%s)" % (base, ", ".join(map(str, shape))) if shape else "%s.view(())" % base if n == 1 else base
        if not shape:
            src = "(torch.arange(1).view(()) + %d)" % r.randint(0, 3)
    env[name] = shape
    return "%s = %s" % (name, src)


def broadcastable(r, shape):
    """A shape that broadcasts with shape (or, now and then, one that does not)."""
    if r.random() < 0.08 and shape:
        bad = list(shape)
        bad[-1] += 1
        return bad
    out = [1 if r.random() < 0.3 else s for s in shape]
    drop = r.randint(0, len(out))
    out = out[drop:]
    if r.random() < 0.2:
        out = [r.randint(1, 3)] + out
    return out


def scalar(r):
    return r.choice(["2", "3", "-1", "0.5", "1e-3", "True", "float('-inf')", "sqrt(2)", "0"])


def generate(r, count):
    lines = []
    env = {}
    k = 0
    while len(lines) < count:
        k += 1
        a, b = "a%d" % k, "b%d" % k
        sa = rand_shape(r)
        lines.append(make_tensor(r, a, sa, env))
        op = r.random()
        if op < 0.35:
            sb = broadcastable(r, sa)
            lines.append(make_tensor(r, b, sb, env))
            o = r.choice(["+", "-", "*", "/", "==", "!=", "<", "<=", ">", ">="])
            lines.append("%s %s %s" % (a, o, b) if r.random() < 0.8 else "%s %s %s" % (b, o, a))
        elif op < 0.55:
            o = r.choice(["+", "-", "*", "/", "<", ">=", "=="])
            s = scalar(r)
            lines.append("%s %s %s" % (a, o, s) if r.random() < 0.7 else "%s %s %s" % (s, o, a))
        elif op < 0.65:
            lines.append("%s.softmax(%d)" % (a, r.randint(-len(sa) - 1, len(sa))) if r.random() < 0.5
                         else "torch.softmax(%s.float(), dim=%d)" % (a, r.randint(-len(sa), max(len(sa) - 1, 0))))
        elif op < 0.78:
            sb = broadcastable(r, sa)
            lines.append(make_tensor(r, b, sb, env))
            lines.append("%s.masked_fill(%s > 0, %s)" % (a, b, scalar(r)))
        elif op < 0.92:
            m, kk, n = r.randint(1, 4), r.randint(1, 4), r.randint(1, 4)
            batch = rand_shape(r, r.randint(0, 2))
            sa2 = batch + [m, kk] if r.random() < 0.85 else [kk]
            sb2 = broadcastable(r, batch) + [kk if r.random() < 0.9 else kk + 1, n]
            if r.random() < 0.15:
                sb2 = [kk]
            lines.append(make_tensor(r, a, sa2, env))
            lines.append(make_tensor(r, b, sb2, env))
            f = r.choice(["%s @ %s", "torch.matmul(%s, %s)", "%s.matmul(%s)"])
            lines.append(f % ("%s.float()" % a, "%s.float()" % b) if r.random() < 0.9 else f % (a, b))
        elif op < 0.96:
            f = r.choice(["cos", "sin", "exp", "sqrt", "rsqrt"])
            lines.append("torch.%s(%s)" % (f, a) if r.random() < 0.5 else "%s.%s()" % (a, f))
        elif op < 0.98:
            e = r.choice(["2", "3", "0.5", "-0.5", "-1", "-2", "1.5", "0", "1"])
            lines.append("%s ** %s" % (a, e) if r.random() < 0.7 else "%s ** %s" % (r.choice(["2", "0.5", "10000.0"]), a))
        else:
            lines.append("%s.%s()" % (a, r.choice(["float", "long", "bool"])))
    return lines


class Session:
    """Runs the lines in torch as a program would (names kept)."""

    def __init__(self):
        self.g = {"torch": torch, "math": math, "F": F, "sqrt": math.sqrt, "softmax": F.softmax}
        self.names = {}

    def run(self, line):
        target = None
        expr = line
        head, sep, rest = line.partition("=")
        if sep and head.strip().isidentifier() and not rest.startswith("="):
            target, expr = head.strip(), rest
        try:
            v = eval(expr, self.g)
        except Exception as e:  # noqa: BLE001 - PyTorch's error is the answer
            return {"ok": False, "error": str(e).split("\n")[0]}
        if not isinstance(v, torch.Tensor):
            return {"ok": True, "value": v}
        same = [n for n, t in self.names.items() if t is v]
        ptrs = {t.storage().data_ptr() for t in self.names.values()
                if t.numel() and t.storage().size()}
        ans = {"ok": True, "shape": list(v.shape), "strides": list(v.stride()),
               "dtype": str(v.dtype), "same": bool(same),
               "view": bool(same) or (v.numel() > 0 and v.storage().data_ptr() in ptrs),
               "data": v.reshape(-1).tolist()}
        if target:
            self.g[target] = v
            self.names[target] = v
        return ans


def close(a, b, dtype):
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if isinstance(x, bool) or isinstance(y, bool) or dtype != "torch.float32":
            if x != y:
                return False
            continue
        if math.isinf(x) or math.isinf(y) or math.isnan(x) or math.isnan(y):
            if not (x == y or (math.isnan(x) and math.isnan(y))):
                return False
        elif abs(x - y) > 1e-6 + 1e-5 * abs(y):
            return False
    return True


def compare(line, got, want):
    if got.get("ok") != want["ok"]:
        return "ok %s, torch %s" % (got.get("ok"), want.get("error", "ok"))
    if not want["ok"]:
        return None if got["error"] == want["error"] else "error %r, torch %r" % (got["error"], want["error"])
    if "value" in want:
        v = got.get("value")
        w = want["value"]
        if isinstance(w, float) and (math.isinf(w) or math.isnan(w)):
            w = "nan" if math.isnan(w) else ("-inf" if w < 0 else "inf")
        return None if v == w or (isinstance(w, float) and isinstance(v, (int, float)) and abs(v - w) < 1e-12) \
            else "value %r, torch %r" % (v, w)
    for key in ("shape", "strides", "dtype"):
        g, w = got.get(key), want[key]
        if key == "strides" and ("@" in line or "matmul" in line):  # see tensormath.c, matmul_batched
            g = [x for x, n in zip(g or [], want["shape"]) if n != 1]
            w = [x for x, n in zip(w, want["shape"]) if n != 1]
        if g != w:
            return "%s %s, torch %s" % (key, got.get(key), want[key])
    if ("same_as" in got) != want["same"]:
        return "same_as %s, torch %s" % ("same_as" in got, want["same"])
    if got["view"] != want["view"]:
        return "view %s, torch %s" % (got["view"], want["view"])
    if not want["view"] and got["copied_bytes"] and not line.split("=")[-1].strip().startswith("torch.arange"):
        pass  # a layout copy of the setup (view/expand chains do not copy; float() does not count)
    if not close(got["data"], want["data"], want["dtype"]):
        return "values %s, torch %s" % (got["data"][:8], want["data"][:8])
    return None


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__)
        return 2
    binary, seed, count, verbose = args[0], 1, 400, "-v" in args
    if "--seed" in args:
        seed = int(args[args.index("--seed") + 1])
    if "--count" in args:
        count = int(args[args.index("--count") + 1])
    lines = FIXED + generate(random.Random(seed), count)
    out = subprocess.run([binary, "play", "--json", "--values", "--no-save"], input="\n".join(lines) + "\n",
                         capture_output=True, text=True, check=False)
    got = [json.loads(x) for x in out.stdout.splitlines()]
    if len(got) != len(lines):
        print("ref_play_math.py: %d answers for %d statements: %s" % (len(got), len(lines), out.stderr[-300:]))
        return 1
    s = Session()
    bad = 0
    for line, g in zip(lines, got):
        w = s.run(line)
        why = compare(line, g, w)
        if why:
            bad += 1
            if bad <= 25:
                print("DIFF %s\n     %s" % (line, why))
        elif verbose:
            print("ok   %s" % line)
    print("ref_play_math.py: %d statements, %d differ from torch %s" % (len(lines), bad, torch.__version__))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
