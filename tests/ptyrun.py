#!/usr/bin/env python3
"""ptyrun.py - run a program on a pty of its own, as a shell would, act on it
and report how it left the terminal (tests/e2e_faults.sh uses it).

    python3 tests/ptyrun.py [--cols 80] [--rows 24] [--env K=V]... [--unset K]...
        [--stderr FILE] [--stdin-null] [--stdout-null] [--do ACTION]... -- CMD ARGS...

A small job-control shell sits between this script and the program: it owns
the pty as its controlling terminal and runs the program in a process group of
its own in the foreground, so Ctrl-C, Ctrl-\\ and Ctrl-Z typed on the pty reach
the program as they would from bash, and a stopped program can be continued.

ACTIONS, in order:
  wait:TEXT     until TEXT is on the output since the last wait (escape
                sequences and spaces ignored); 15 s at most
  send:TEXT     type TEXT (Python escapes: \\x03 is Ctrl-C, \\r Enter)
  kill:SIG      kill -SIG the program (SIG: INT, TERM, HUP, QUIT, ...)
  resize:CxR    set the pty's size (the kernel sends SIGWINCH)
  resizes:N     N resizes, alternating 20x5 and 250x80
  sleep:S       S seconds, reading the output
  tstp          type Ctrl-Z, wait until the program stops, then report the
                terminal as it was left while stopped
  fg            continue the program in the foreground

Report, one key=value a line:
  status=exit:N | signal:N | signal:N+core | timeout
  stty=same|differs     `stty -g` on the pty before the program and after it
  alt=left|kept|none    the terminal's smcup sent and rmcup after it | not | never
  cursor=shown|hidden|none   civis sent and cnorm after it | not | never
  bytes=N highbytes=N colours=N   output size, bytes >= 0x80, colour SGRs
  wait=ok:TEXT | wait=fail:TEXT    one a wait
  stopped=yes|no, stopped_stty=, stopped_alt=, stopped_cursor=   for tstp
"""
import argparse
import fcntl
import os
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time

WAIT_S = 15.0
ESC_RE = re.compile(rb"\x1b(\[[0-9;?>=]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z]|.)")
COLOUR_RE = re.compile(rb"\x1b\[([0-9;]*)m")


def set_size(fd, cols, rows):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


def stty(fd):
    return subprocess.run(["stty", "-g"], stdin=fd, capture_output=True, text=True).stdout.strip()


def cap(term, name):
    """The terminfo string name of term, as bytes (b"" if none)."""
    if not term:
        return b""
    r = subprocess.run(["tput", "-T", term, name], capture_output=True)
    return r.stdout if r.returncode == 0 else b""


def shell(slave, argv, env, stderr_path, stdin_null, stdout_null, ctl_w, cmd_r):
    """The job-control shell (a forked child): never returns."""
    os.setsid()
    fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
    signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    child = os.fork()
    if child == 0:
        os.setpgid(0, 0)
        os.tcsetpgrp(slave, os.getpid())
        for s in (signal.SIGTTOU, signal.SIGINT, signal.SIGPIPE, signal.SIGQUIT, signal.SIGTSTP):
            signal.signal(s, signal.SIG_DFL)
        os.dup2(slave, 0)
        os.dup2(slave, 1)
        os.dup2(slave, 2)
        if stdin_null:
            os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
        if stdout_null:
            os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        if stderr_path:
            os.dup2(os.open(stderr_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), 2)
        os.closerange(3, 1024)
        try:
            os.execvpe(argv[0], argv, env)
        except OSError as e:
            os.write(2, f"ptyrun: {argv[0]}: {e}\n".encode())
            os._exit(127)
    try:
        os.setpgid(child, child)
    except OSError:
        pass
    os.write(ctl_w, f"pid {child}\n".encode())
    while True:
        _, st = os.waitpid(child, os.WUNTRACED)
        if os.WIFSTOPPED(st):
            os.tcsetpgrp(slave, os.getpgrp())  # take the terminal back, modes untouched
            os.write(ctl_w, b"stopped\n")
            os.read(cmd_r, 16)  # fg
            os.tcsetpgrp(slave, child)
            os.killpg(child, signal.SIGCONT)
            continue
        if os.WIFEXITED(st):
            os.write(ctl_w, f"exit {os.WEXITSTATUS(st)}\n".encode())
        else:
            core = "+core" if os.WCOREDUMP(st) else ""
            os.write(ctl_w, f"signal {os.WTERMSIG(st)}{core}\n".encode())
        os._exit(0)


class Run:
    def __init__(self, master):
        self.master = master
        self.out = bytearray()
        self.mark = 0
        self.ctl = b""
        self.eof = False

    def pump(self, secs, ctl_r):
        """Read output and shell messages for up to secs seconds."""
        end = time.monotonic() + secs
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return
            r, _, _ = select.select([self.master] + ([] if self.eof else [ctl_r]), [], [], left)
            if self.master in r:
                try:
                    self.out += os.read(self.master, 65536)
                except OSError:
                    pass
            if ctl_r in r and not self.eof:
                data = os.read(ctl_r, 256)
                self.ctl += data
                self.eof = not data
                return

    def text(self, start):
        flat = ESC_RE.sub(b"", bytes(self.out[start:]))
        return re.sub(rb"\s+", b"", flat)


def screen_state(out, smcup, rmcup, civis, cnorm):
    def order(on, off):
        if not on or out.rfind(on) < 0:
            return "none"
        return "left" if off and out.rfind(off) > out.rfind(on) else "kept"
    alt = order(smcup, rmcup)
    cur = order(civis, cnorm)
    return alt, {"left": "shown", "kept": "hidden", "none": "none"}[cur]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cols", type=int, default=80)
    ap.add_argument("--rows", type=int, default=24)
    ap.add_argument("--env", action="append", default=[])
    ap.add_argument("--unset", action="append", default=[])
    ap.add_argument("--stderr")
    ap.add_argument("--stdin-null", action="store_true")
    ap.add_argument("--stdout-null", action="store_true")
    ap.add_argument("--do", action="append", default=[])
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("argv", nargs="+")
    a = ap.parse_args()

    env = dict(os.environ)
    env.setdefault("TERM", "xterm-256color")
    for kv in a.env:
        k, _, v = kv.partition("=")
        env[k] = v
    for k in a.unset:
        env.pop(k, None)
    term = env.get("TERM", "")
    smcup, rmcup, civis, cnorm = (cap(term, n) for n in ("smcup", "rmcup", "civis", "cnorm"))

    master, slave = os.openpty()
    set_size(slave, a.cols, a.rows)
    before = stty(slave)
    ctl_r, ctl_w = os.pipe()
    cmd_r, cmd_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(master)
        os.close(ctl_r)
        os.close(cmd_w)
        try:
            shell(slave, a.argv, env, a.stderr, a.stdin_null, a.stdout_null, ctl_w, cmd_r)
        finally:
            os._exit(126)
    os.close(ctl_w)
    os.close(cmd_r)
    run = Run(master)
    report = []
    deadline = time.monotonic() + a.timeout

    def ctl_line():
        """The next message of the shell (waiting for it), or None."""
        while b"\n" not in run.ctl and not run.eof:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            run.pump(min(1.0, left), ctl_r)
        if b"\n" not in run.ctl:
            return None
        line, _, rest = run.ctl.partition(b"\n")
        run.ctl = rest
        return line.decode()

    first = ctl_line() or ""
    child = int(first.split()[1]) if first.startswith("pid ") else None
    status = None
    for act in a.do:
        verb, _, arg = act.partition(":")
        if verb == "wait":
            want = re.sub(rb"\s+", b"", arg.encode())
            end = min(deadline, time.monotonic() + WAIT_S)
            while want not in run.text(run.mark) and time.monotonic() < end and b"\n" not in run.ctl:
                run.pump(0.05, ctl_r)
            found = want in run.text(run.mark)
            if found:
                run.mark = len(run.out)
            report.append(f"wait={'ok' if found else 'fail'}:{arg}")
        elif verb == "send":
            os.write(master, arg.encode().decode("unicode_escape").encode("latin-1"))
            run.pump(0.02, ctl_r)
        elif verb == "kill" and child:
            os.kill(child, getattr(signal, "SIG" + arg))
        elif verb == "resize":
            c, _, r = arg.partition("x")
            set_size(master, int(c), int(r))
        elif verb == "resizes":
            for i in range(int(arg)):
                set_size(master, *((20, 5) if i % 2 == 0 else (250, 80)))
                run.pump(0.002, ctl_r)
        elif verb == "sleep":
            run.pump(float(arg), ctl_r)
        elif verb == "tstp":
            os.write(master, b"\x1a")
            line = ctl_line()
            stopped = line == "stopped"
            report.append(f"stopped={'yes' if stopped else 'no'}")
            if not stopped:
                if line and line.split()[0] in ("exit", "signal"):
                    status = line
                continue
            run.pump(0.1, ctl_r)
            alt, cur = screen_state(bytes(run.out), smcup, rmcup, civis, cnorm)
            report += [f"stopped_stty={'same' if stty(slave) == before else 'differs'}",
                       f"stopped_alt={alt}", f"stopped_cursor={cur}"]
        elif verb == "fg":
            os.write(cmd_w, b"fg\n")
            run.pump(0.05, ctl_r)
    if status is None:
        line = ctl_line()
        status = line if line and line.split()[0] in ("exit", "signal") else None
    if status is None:
        if child:
            os.kill(child, signal.SIGKILL)
        report.insert(0, "status=timeout")
    else:
        kind, _, n = status.partition(" ")
        report.insert(0, f"status={kind}:{n}")
    run.pump(0.05, ctl_r)
    os.waitpid(pid, 0)
    out = bytes(run.out)
    alt, cur = screen_state(out, smcup, rmcup, civis, cnorm)
    colours = sum(1 for m in COLOUR_RE.finditer(out)
                  if re.search(rb"(^|;)(3[0-7]|4[0-7]|38;5;\d+|48;5;\d+)(;|$)", m.group(1)))
    report += [f"stty={'same' if stty(slave) == before else 'differs'}", f"alt={alt}",
               f"cursor={cur}", f"bytes={len(out)}",
               f"highbytes={sum(1 for b in out if b >= 0x80)}", f"colours={colours}"]
    print("\n".join(report))


if __name__ == "__main__":
    main()
