#!/usr/bin/env python3
"""bench_pageturn - a lesson page turn with saving on, against --no-save.

Run by tests/bench.sh:  python3 tests/bench_pageturn.py MHAVIZ

Each sample is a fresh run of `mhaviz lesson 2` in a pty with an empty state
directory, so the turn marks a page that was never done (and has to be
saved): PgDn, then the time to the last byte of the redraw (ptybench's
settle rule).  The save must not be in that time: it comes in a tick after
the frame.
"""
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ptybench import Pty  # noqa: E402

PGDN = b"\x1b[6~"


def turn_ms(mh, extra, env, settle=0.15):
    with tempfile.TemporaryDirectory() as state:
        p = Pty([mh, "lesson", "2"] + extra, 80, 24, dict(env, XDG_STATE_HOME=state))
        p.settle(p.t0, settle, 10)
        t = p.send(PGDN)
        last, _ = p.settle(t, settle, 10)
        p.finish(b"q")
        saved = os.path.exists(os.path.join(state, "mhaviz", "progress"))
    return ((last - t) * 1000 if last else float("nan")), saved


def main():
    mh = os.path.abspath(sys.argv[1])
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 9
    env = dict(os.environ, TERM="xterm-256color", LANG="C.UTF-8", LC_ALL="C.UTF-8")
    rows = {"saving on": [], "--no-save": []}
    saved_all = True
    for _ in range(n):  # alternated, so both see the same machine load
        ms, saved = turn_ms(mh, [], env)
        rows["saving on"].append(ms)
        saved_all = saved_all and saved
        rows["--no-save"].append(turn_ms(mh, ["--no-save"], env)[0])
    for name, xs in rows.items():
        xs = [x for x in xs if x == x]
        print(f"  page turn, {name:10s} median {statistics.median(xs):6.2f} ms"
              f"  range {min(xs):.2f}..{max(xs):.2f} ms  ({len(xs)} runs)")
    print(f"  progress saved by every run with saving on: {'yes' if saved_all else 'NO'}")


if __name__ == "__main__":
    main()
