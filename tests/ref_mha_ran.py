#!/usr/bin/env python3
"""ref_mha_ran.py - the statements `mhaviz export` says each step ran
("steps"[i]["ran"]), executed by PyTorch 1.13 on the export's own x and
weights, give the export's tensors: the same shapes and strides, values
within 1e-5 (the run computes in float32 with its own kernels).  So the
PyTorch a learner reads in the trace is the program that computed the run.

Usage: /usr/bin/python3 ref_mha_ran.py BIN [EXPORT FLAGS...]
Exit 0 when they agree, 1 with the differences (2: no torch).
"""
import json
import math
import subprocess
import sys

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    print("ref_mha_ran.py: needs torch (Debian python3-torch, /usr/bin/python3)")
    sys.exit(2)


def rope(t, layout, theta):
    """engine/rope.c's rotation: position p turns pair (a, b) by p * theta^(-2i/dh)."""
    dh = t.shape[-1]
    half = dh // 2
    pos = torch.arange(t.shape[-2], dtype=torch.float64).view(-1, 1)
    inv = theta ** (-torch.arange(half, dtype=torch.float64) * 2 / dh)
    ang = pos * inv
    cos, sin = torch.cos(ang).float(), torch.sin(ang).float()
    if layout == "half":
        a, b = t[..., :half], t[..., half:]
        return torch.cat((a * cos - b * sin, a * sin + b * cos), -1)
    a, b = t[..., 0::2], t[..., 1::2]
    return torch.stack((a * cos - b * sin, a * sin + b * cos), -1).flatten(-2)


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    out = subprocess.run([sys.argv[1], "export"] + sys.argv[2:], capture_output=True, text=True, check=True)
    doc = json.loads(out.stdout)
    c, ts = doc["config"], doc["tensors"]

    def tensor(name):
        t = ts[name]
        return torch.tensor(t["data"], dtype=torch.float32).view(t["shape"])

    g = {"torch": torch, "math": math, "F": F, "sqrt": math.sqrt, "softmax": F.softmax,
         "B": c["batch"], "S": c["seq"], "D": c["d_model"], "H": c["heads"], "KV": c["kv_heads"],
         "G": c["heads"] // c["kv_heads"], "dh": c["d_head"], "W": c.get("window") or 0,
         "rope": lambda t: rope(t, c["rope"], c["rope_theta"])}
    for n in ("x", "W_Q", "W_K", "W_V", "W_O"):
        g[n] = tensor(n)
    bad, checked = [], 0
    for st in doc["steps"]:
        for stmt in st["ran"]:
            target, expr = stmt.split(" = ", 1)
            v = eval(expr, g)
            g[target] = v
            if target not in ts:
                continue
            want = ts[target]
            checked += 1
            if list(v.shape) != want["shape"] or list(v.stride()) != want["strides"]:
                bad.append("%s: shape %s strides %s, run %s %s" % (stmt, list(v.shape), list(v.stride()),
                                                                  want["shape"], want["strides"]))
                continue
            got = v.reshape(-1).tolist()
            for a, b in zip(got, want["data"]):
                if isinstance(b, str) or abs(a - b) > 1e-5 + 1e-5 * abs(b):
                    bad.append("%s: %r vs the run's %r" % (stmt, a, b))
                    break
    for b in bad[:10]:
        print("DIFF " + b)
    print("ref_mha_ran.py: %d statements' tensors, %d differ from torch %s" % (checked, len(bad), torch.__version__))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
