#!/usr/bin/env python3
"""ref_mha_ran.py - the statements `mhaviz export` says each step ran
("steps"[i]["ran"]), executed by PyTorch 1.13 on the export's own x and
weights, give the export's tensors: the same shapes and strides, values
within 1e-5 (the run computes in float32 with its own kernels).  So the
PyTorch a learner reads in the trace is the program that computed the run.
The walkthrough's program panel ("program") runs too and gives the
run's out; each of its failure pictures ("program_bugs": the line
replaced by the bug) gives the run's Q_wrong or attn_noscale.

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


def differs(v, want):
    """Why tensor v is not the export's tensor want, or None: its shape, its
    strides (but a size-1 dim's, which address nothing and which PyTorch and
    the engine may write differently) and its values."""
    if list(v.shape) != want["shape"]:
        return "shape %s, the run's %s" % (list(v.shape), want["shape"])
    if any(n > 1 and a != b for n, a, b in zip(want["shape"], v.stride(), want["strides"])):
        return "strides %s, the run's %s" % (list(v.stride()), want["strides"])
    for a, b in zip(v.reshape(-1).tolist(), want["data"]):
        if isinstance(b, str) or abs(a - b) > 1e-5 + 1e-5 * abs(b):
            return "%r vs the run's %r" % (a, b)
    return None


def assigned(line):
    return line.split(" = ", 1)[0]


def run_program(doc, g0, bad):
    """The panel's program from the names g0 gives the run's out; each bug's
    program (its line replaced) gives the bug's tensor in its name.  Adds to bad;
    returns the program's lines."""
    prog, ts = doc["program"], doc["tensors"]
    g = dict(g0)
    for line in prog:
        exec(line, g)
    why = differs(g["out"], ts["out"])
    if why:
        bad.append("program's y: " + why)
    for bug in doc["program_bugs"]:
        g, at = dict(g0), bug["line"] - 1
        lines = prog[:at] + [bug["code"]] + prog[at + 1:]
        for i, line in enumerate(lines):
            exec(line, g)
            if i >= at and assigned(line) == bug["name"]:
                why = differs(g[bug["name"]], ts[bug["tensor"]])
                if why:
                    bad.append("%s bug's %s: %s" % (bug["view"], bug["name"], why))
                break
        else:
            bad.append("%s bug: no line makes %s" % (bug["view"], bug["name"]))
    return len(prog)


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

    def fresh():
        """The names a program starts from: the export's x and weights, its sizes."""
        g = {"torch": torch, "math": math, "F": F, "sqrt": math.sqrt, "softmax": F.softmax,
             "B": c["batch"], "S": c["seq"], "D": c["d_model"], "H": c["heads"], "KV": c["kv_heads"],
             "G": c["heads"] // c["kv_heads"], "dh": c["d_head"], "W": c.get("window") or 0,
             "rope": lambda t: rope(t, c["rope"], c["rope_theta"])}
        for n in ("x", "W_Q", "W_K", "W_V", "W_O"):
            g[n] = tensor(n)
        return g

    g = fresh()
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
    lines = run_program(doc, fresh(), bad)
    for b in bad[:10]:
        print("DIFF " + b)
    print("ref_mha_ran.py: %d statements' tensors and the panel's program (%d lines, %d bugs), %d differ "
          "from torch %s" % (checked, lines, len(doc["program_bugs"]), len(bad), torch.__version__))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
