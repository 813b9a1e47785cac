#!/usr/bin/env python3
"""pybatch.py - run one Python script on many argument lists in a single
interpreter, so that a heavy import (torch: 1 to 2 s of CPU) is paid once per
e2e script, not once per case.

Usage: pybatch.py SCRIPT < CASES

Each line of CASES is one run, "OUT ARG...", split on whitespace (so no
argument holds a space).  Each run is what `python3 SCRIPT ARG...` would do:
sys.argv is [SCRIPT, ARG...], sys.path[0] the script's folder, the script
executed afresh as __main__ (its own globals; the modules it imports are
imported once and shared).  Its stdout and stderr, at the file-descriptor
level (a C extension's warnings too), go to the file OUT; its exit status
to OUT.rc: 0, the number it exits with, or 1 for an exit with a message or
an exception (the message or the traceback in OUT, as python prints them).
pybatch.py itself exits 0 once every line has run, 2 for bad usage.
"""
import os
import runpy
import sys
import traceback


def run_one(script, out, args):
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    sys.argv = [script] + args
    rc = 0
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as e:
        if e.code is None:
            rc = 0
        elif isinstance(e.code, int):
            rc = e.code
        else:
            print(e.code, file=sys.stderr)
            rc = 1
    except BaseException:  # what python would print before exiting 1
        traceback.print_exc()
        rc = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os.dup2(saved[0], 1)
    os.dup2(saved[1], 2)
    os.close(saved[0])
    os.close(saved[1])
    with open(out + ".rc", "w") as f:
        f.write("%d\n" % rc)


def main():
    if len(sys.argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    script = os.path.abspath(sys.argv[1])
    sys.path.insert(0, os.path.dirname(script))
    for line in sys.stdin.read().splitlines():
        words = line.split()
        if words:
            run_one(script, words[0], words[1:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
