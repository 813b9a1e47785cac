#!/usr/bin/env python3
"""bench_screens - every screen of mhaviz at a big size (default 200x60) in a pty.

Run by tests/bench.sh:  python3 tests/bench_screens.py MHAVIZ [--cols 200 --rows 60]

For each screen: the time to its first settled frame from spawn (or from the
key that opens it), the bytes of that frame, and the process's peak RSS.
Median and range over --repeat runs.  Figures are printed, never asserted.
"""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ptybench import Pty  # noqa: E402

# name, argv after the binary, keys sent after the first frame (each settles)
SCREENS = [
    ("home", [], b""),
    ("walk step 0", ["walk"], b""),
    ("walk step 5 (softmax)", ["walk", "--step", "5"], b""),
    ("walk step 8 (copy)", ["walk", "--step", "8", "--no-animation"], b""),
    ("walk inspect", ["walk", "--step", "3"], b"i"),
    ("walk 8 heads, seq 8", ["walk", "--heads", "8", "--d-model", "32", "--seq", "8", "--step", "5"], b""),
    ("help", ["walk"], b"?"),
    ("form", ["walk"], b"c"),
    ("lesson menu", ["lesson"], b""),
    ("lesson 2", ["lesson", "2"], b""),
    ("variants", [], b"6"),       # the home menu's entries by number
    ("kv calculator", [], b"7"),
    ("quiz picker", ["quiz"], b""),
]


def one(mh, args, keys, a, env):
    p = Pty([mh] + args + ["--no-save"], a.cols, a.rows, env)
    settle = a.settle_ms / 1000
    last, n = p.settle(p.t0, settle, a.timeout)
    ms = (last - p.t0) * 1000 if last else float("nan")
    for k in keys:
        t = p.send(bytes([k]))
        last, n = p.settle(t, settle, a.timeout)
        ms = (last - t) * 1000 if last else float("nan")
    hwm = p.hwm_kb()
    p.finish(b"\x1bqqq")
    return ms, n, hwm


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cols", type=int, default=200)
    ap.add_argument("--rows", type=int, default=60)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--settle-ms", type=float, default=150)
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("mhaviz")
    a = ap.parse_args()
    env = dict(os.environ, TERM="xterm-256color", LANG="C.UTF-8", LC_ALL="C.UTF-8")
    env.pop("NO_COLOR", None)
    env["XDG_STATE_HOME"] = os.environ.get("TMPDIR", "/tmp") + "/mhaviz-bench-%d" % os.getpid()
    mh = os.path.abspath(a.mhaviz)
    print(f"pty {a.cols}x{a.rows}, TERM=xterm-256color, median [min-max] of {a.repeat}")
    print(f"  {'screen':28} {'frame ms':>20} {'bytes':>16} {'peak RSS MB':>18}")
    for name, args, keys in SCREENS:
        ms, nb, rss = [], [], []
        for _ in range(a.repeat):
            m, n, h = one(mh, args, keys, a, env)
            ms.append(m)
            nb.append(n)
            rss.append((h or 0) / 1024)

        def fmt(xs, f):
            return f"{statistics.median(xs):{f}} [{min(xs):{f}}-{max(xs):{f}}]"

        print(f"  {name:28} {fmt(ms, '.1f'):>20} {fmt(nb, '.0f'):>16} {fmt(rss, '.2f'):>18}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
