#!/usr/bin/env python3
"""ptybench - measure mhaviz's TUI in a pseudo-terminal (standard library only).

Run by tests/bench.sh:  python3 tests/ptybench.py --floor FLOORBIN MHAVIZ

What a terminal would receive is what counts: every byte the program writes
to the pty is timestamped as it is read.  A "frame" ends when the output has
been quiet for --settle-ms; its time is that of its LAST byte (the settle
window is not counted).

  first frame   spawn -> last byte of the first frame; median of --repeat runs
                of the floor program (initscr, one line, getch) and of
                `mhaviz walk`, alternated so both see the same machine load
  next step     `walk --no-animation`: Space -> last byte of the redraw, and
                the bytes of that redraw, over every step of the walkthrough
  idle          bytes written and CPU (ns on CPU from /proc/PID/schedstat)
                over --idle-s seconds with no input
  peak RSS      VmHWM from /proc/PID/status at the end of the run
  animation     `walk --step 1`, Space onto the split step: time from the
                first to the last byte, frames (bursts of output separated by
                more than 8 ms), frames per second, CPU share over it
"""
import argparse
import fcntl
import os
import select
import signal
import statistics
import struct
import sys
import termios
import time


class Pty:
    """One program in a fresh pty of cols x rows."""

    def __init__(self, argv, cols, rows, env):
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.t0 = time.perf_counter()
        self.pid = os.fork()
        if self.pid == 0:  # child: the pty is its controlling terminal and stdio
            try:
                os.setsid()
                fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
                for fd in (0, 1, 2):
                    os.dup2(slave, fd)
                os.close(self.master)
                os.execve(argv[0], argv, env)
            finally:
                os._exit(127)
        os.close(slave)
        self.chunks = []  # (time, bytes)
        self.status = None

    def pump(self, timeout):
        """Reads what is there within timeout s; returns bytes read."""
        r, _, _ = select.select([self.master], [], [], max(timeout, 0))
        if not r:
            return 0
        try:
            data = os.read(self.master, 65536)
        except OSError:  # EIO: the program closed the pty
            return -1
        if not data:
            return -1
        self.chunks.append((time.perf_counter(), len(data)))
        return len(data)

    def settle(self, since, settle, max_wait):
        """Waits for output after `since`, then for settle s of quiet.
        Returns (time of the last byte or None, bytes since `since`)."""
        end = time.perf_counter() + max_wait
        while True:
            now = time.perf_counter()
            after = [c for c in self.chunks if c[0] >= since]
            last = after[-1][0] if after else None
            if last is not None and now - last >= settle:
                return last, sum(n for _, n in after)
            if now >= end:
                return last, sum(n for _, n in after)
            wait = (last + settle - now) if last is not None else end - now
            if self.pump(min(wait, end - now)) < 0:
                after = [c for c in self.chunks if c[0] >= since]
                return (after[-1][0] if after else None), sum(n for _, n in after)

    def send(self, data):
        t = time.perf_counter()
        os.write(self.master, data)
        return t

    def cpu_ns(self):
        """ns this process has run on a CPU (schedstat: exact, not ticks)."""
        try:
            with open(f"/proc/{self.pid}/schedstat") as f:
                return int(f.read().split()[0])
        except OSError:
            return None

    def hwm_kb(self):
        try:
            with open(f"/proc/{self.pid}/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1])
        except OSError:
            pass
        return None

    def finish(self, key=b"q", wait=5.0):
        """Sends key, waits for the exit; returns the exit status (or None)."""
        if key:
            try:
                self.send(key)
            except OSError:
                pass
        end = time.perf_counter() + wait
        while time.perf_counter() < end:
            pid, st = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(st)
                break
            self.pump(0.02)
        if self.status is None:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        os.close(self.master)
        return self.status


def first_frame(argv, a, env):
    p = Pty(argv, a.cols, a.rows, env)
    last, nbytes = p.settle(p.t0, a.settle_ms / 1000, a.timeout)
    p.finish(b"q")
    return (last - p.t0) * 1000 if last else float("nan"), nbytes


def med(xs):
    xs = [x for x in xs if x == x]
    return statistics.median(xs) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--floor", required=True, help="the minimal ncurses program")
    ap.add_argument("--cols", type=int, default=80)
    ap.add_argument("--rows", type=int, default=24)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--settle-ms", type=float, default=150)
    ap.add_argument("--idle-s", type=float, default=3.0)
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("mhaviz")
    a = ap.parse_args()
    env = dict(os.environ, TERM="xterm-256color", LANG="C.UTF-8", LC_ALL="C.UTF-8")
    env.pop("NO_COLOR", None)
    mh = os.path.abspath(a.mhaviz)
    settle = a.settle_ms / 1000

    # first frame, alternating floor and mhaviz
    floor_ms, walk_ms, walk_bytes = [], [], []
    for _ in range(a.repeat):
        floor_ms.append(first_frame([a.floor], a, env)[0])
        ms, n = first_frame([mh, "walk", "--no-animation"], a, env)
        walk_ms.append(ms)
        walk_bytes.append(n)

    # next step, idle, RSS: one run through every step
    p = Pty([mh, "walk", "--no-animation"], a.cols, a.rows, env)
    p.settle(p.t0, settle, a.timeout)
    c0, n0 = p.cpu_ns(), len(p.chunks)
    t_idle = time.perf_counter()
    while time.perf_counter() - t_idle < a.idle_s:
        p.pump(t_idle + a.idle_s - time.perf_counter())
    c1 = p.cpu_ns()
    idle_bytes = sum(n for _, n in p.chunks[n0:])
    idle_cpu_ms = (c1 - c0) / 1e6 if c0 is not None and c1 is not None else float("nan")
    step_ms, step_bytes = [], []
    for _ in range(10):
        t = p.send(b" ")
        last, n = p.settle(t, settle, a.timeout)
        step_ms.append((last - t) * 1000 if last else float("nan"))
        step_bytes.append(n)
    for _ in range(10):  # and back
        t = p.send(b"k")
        last, n = p.settle(t, settle, a.timeout)
        step_ms.append((last - t) * 1000 if last else float("nan"))
        step_bytes.append(n)
    hwm = p.hwm_kb()
    st = p.finish(b"q")

    # animation: step 1 -> split
    q = Pty([mh, "walk", "--step", "1"], a.cols, a.rows, env)
    q.settle(q.t0, settle, a.timeout)
    c0 = q.cpu_ns()
    t = q.send(b" ")
    last, anim_bytes = q.settle(t, 0.4, a.timeout)
    c1 = q.cpu_ns()
    times = [ct for ct, _ in q.chunks if ct >= t]
    bursts = 0
    prev = None
    for ct in times:
        if prev is None or ct - prev > 0.008:
            bursts += 1
        prev = ct
    dur = (times[-1] - times[0]) if len(times) > 1 else 0.0
    fps = (bursts - 1) / dur if dur > 0 else float("nan")
    busy = (last - t) if last else float("nan")
    anim_cpu = (c1 - c0) / 1e9 / busy * 100 if c0 is not None and busy == busy else float("nan")
    q.finish(b"q")

    f, w = med(floor_ms), med(walk_ms)
    rows = [
        ("first frame: minimal ncurses", f"{f:.1f} ms", "", "floor"),
        ("first frame: mhaviz walk", f"{w:.1f} ms", "", f"{med(walk_bytes):.0f} bytes"),
        ("first frame ratio", f"{w / f:.2f}x", "<= 1.2x", "ok" if w / f <= 1.2 else "OVER"),
        ("next step latency (median)", f"{med(step_ms):.2f} ms", "<= 2 ms",
         "ok" if med(step_ms) <= 2 else "OVER"),
        ("next step latency (max)", f"{max(step_ms):.2f} ms", "", ""),
        ("next step bytes (median)", f"{med(step_bytes):.0f} B", "<= 2048 B",
         "ok" if med(step_bytes) <= 2048 else "OVER"),
        ("next step bytes (max)", f"{max(step_bytes)} B", "", ""),
        (f"idle {a.idle_s:.0f} s: bytes", f"{idle_bytes} B", "0 B", "ok" if idle_bytes == 0 else "OVER"),
        (f"idle {a.idle_s:.0f} s: CPU", f"{idle_cpu_ms:.3f} ms", "< 1 ms",
         "ok" if idle_cpu_ms < 1 else "OVER"),
        ("peak RSS (VmHWM)", f"{hwm / 1024:.2f} MB" if hwm else "?", "<= 3 MB",
         "ok" if hwm and hwm <= 3 * 1024 else "OVER"),
        ("animation: duration", f"{dur * 1000:.0f} ms", "<= 1200 ms", "ok" if dur <= 1.2 else "OVER"),
        ("animation: frames, fps", f"{bursts}, {fps:.1f}/s", "<= 30/s", "ok" if fps <= 30.5 else "OVER"),
        ("animation: CPU", f"{anim_cpu:.1f} %", "< 10 %", "ok" if anim_cpu < 10 else "OVER"),
        ("animation: bytes", f"{anim_bytes} B", "", ""),
        ("exit code after q", f"{st}", "0", "ok" if st == 0 else "BAD"),
    ]
    print(f"pty {a.cols}x{a.rows}, TERM=xterm-256color, median of {a.repeat} where it says")
    print(f"  {'figure':34} {'value':>16}  {'target':>11}  verdict")
    for name, v, target, verdict in rows:
        print(f"  {name:34} {v:>16}  {target:>11}  {verdict}")
    print(f"  next step bytes, 0->1 ... 9->10: {' '.join(str(n) for n in step_bytes[:10])}")
    print(f"  back, 10->9 ... 1->0: {' '.join(str(n) for n in step_bytes[10:])}")
    print(f"  first frames (ms): floor {' '.join(f'{x:.1f}' for x in floor_ms)}; "
          f"walk {' '.join(f'{x:.1f}' for x in walk_ms)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
