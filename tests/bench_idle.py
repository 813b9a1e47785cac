#!/usr/bin/env python3
"""bench_idle.py - how asleep an idle mhaviz is: the walkthrough on a pty at
80x24, left alone for --idle-s seconds once its first frame is out.

Prints the system calls it made (strace -p, when strace is there and may
attach) and the times it woke up (voluntary context switches from
/proc/PID/status).  Both should be 0: the loop waits in pselect with no
timeout until a key, a resize or a signal (tui.c).

    python3 tests/bench_idle.py [--idle-s 3] BIN [ARGS...]
"""
import argparse
import os
import pty
import select
import shutil
import signal
import struct
import subprocess
import tempfile
import termios
import fcntl
import time


def wakeups(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("voluntary_ctxt_switches:"):
                return int(line.split()[1])
    return -1


def drain(fd, secs):
    end = time.monotonic() + secs
    while (left := end - time.monotonic()) > 0:
        if select.select([fd], [], [], left)[0]:
            try:
                os.read(fd, 65536)
            except OSError:
                return


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--idle-s", type=float, default=3.0)
    ap.add_argument("argv", nargs="+")
    a = ap.parse_args()
    argv = a.argv if len(a.argv) > 1 else a.argv + ["walk", "--no-animation"]
    pid, fd = pty.fork()
    if pid == 0:
        os.environ.update(TERM="xterm-256color", LANG="C.UTF-8", LC_ALL="C.UTF-8")
        os.execv(argv[0], argv)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    drain(fd, 1.0)  # the first frame, then quiet
    w0 = wakeups(pid)
    drain(fd, a.idle_s)
    woke = wakeups(pid) - w0
    calls = "n/a (no strace)"
    if shutil.which("strace"):  # a second window: attaching wakes it up by itself
        with tempfile.NamedTemporaryFile("r", suffix=".strace") as log:
            p = subprocess.Popen(["strace", "-f", "-p", str(pid), "-o", log.name],
                                 stderr=subprocess.PIPE, text=True)
            drain(fd, a.idle_s)
            p.send_signal(signal.SIGINT)
            err = p.communicate()[1]
            lines = [l for l in log.read().splitlines()
                     if "<unfinished" not in l and "<detached" not in l and "+++" not in l]
            calls = "n/a (cannot attach)" if "ptrace" in err else str(len(lines))
    os.kill(pid, signal.SIGTERM)
    drain(fd, 0.2)
    os.waitpid(pid, 0)
    print(f"  idle {a.idle_s:.0f} s: wake-ups {woke}, system calls {calls}   (target 0 and 0)")


if __name__ == "__main__":
    main()
