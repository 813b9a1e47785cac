#!/usr/bin/env python3
"""ref_listings.py - runs the quiz's listings in PyTorch, as written.

usage: ref_listings.py MHAVIZ_BIN [--seeds N] [--count N] [--topics a,b,...]

For each topic and seed it reads `mhaviz quiz --plain --no-save --topic T
--seed S --count N` (every question skipped) and, for each question that
shows code:

  - a pipeline listing (its "The engine ran:" lines): runs each line on
    random x and weights of the question's sizes and checks the shape, the
    strides and the memory each line claims (a new buffer, a view of an
    earlier storage, a copy, or PyTorch's error);
  - a decode listing: its "The engine ran:" lines the same way, on random x
    and weights of the sizes it states (the cache is the listing's own);
  - a GQA listing that makes its own K (torch.zeros, torch.arange): the
    same, in an empty namespace;
  - a bugs program: runs it; it must raise exactly when the working says
    the engine raised, and otherwise make y (B, S, D);
  - a rope angle question: runs its inv_freq line and checks the key is the
    angle of the float's pair at the position;
  - a flash m/l question: recomputes m or l from the scores it shows.

Prints one line per topic and "listings: N run, M failed"; exits 1 on any
failure, printing the question and what PyTorch did.  Needs torch (Debian
python3-torch, PyTorch 1.13).
"""
import math
import re
import subprocess
import sys

import torch

TUPLE = r"\(([-\d, ]*)\)"


def tup(s):
    return tuple(int(v) for v in s.replace(" ", "").split(",") if v != "")


def questions(binary, topic, seed, count):
    out = subprocess.run(
        [binary, "quiz", "--plain", "--no-save", "--topic", topic, "--seed", str(seed),
         "--count", str(count)],
        input="\n" * (count + 2), capture_output=True, text=True, check=True).stdout
    blocks = re.split(r"^\[\d+/\d+\] \w+\n", out, flags=re.M)[1:]
    return [b.split("\nNo questions answered")[0] for b in blocks]


def storages(ns):
    return {v.storage().data_ptr() for v in ns.values() if isinstance(v, torch.Tensor)}


def run_pipeline(block, ns=None):
    """The 'The engine ran:' lines of a shapes/strides/offsets/views/gqa question
    (or of a decode question, with ns its inputs).  A listing that reads no x
    and no weight (GQA's K = torch.zeros(...), kv = torch.arange(...)) makes
    what it reads and runs in an empty namespace."""
    trace = block.split("The engine ran:\n", 1)[1]
    m = re.search(r"x is \((\d+), (\d+), (\d+)\): .*?(\d+) heads? \(d_head (\d+)\)"
                  r"(?:, (\d+) kv heads?)?", block)
    if ns is not None:
        pass
    elif not any(re.search(r"\b(x|W_[QKVO])\b", c)
                 for c in re.findall(r"^    (\S.*?)\s+-> ", trace, flags=re.M)):
        ns = {"torch": torch}
    elif not m:
        return "no 'x is (B, S, D)' line to size the inputs"
    else:
        B, S, D, H, dh = (int(m.group(i)) for i in range(1, 6))
        KV = int(m.group(6) or H)
        torch.manual_seed(0)
        ns = {"torch": torch, "sqrt": math.sqrt, "softmax": torch.softmax,
              "x": torch.randn(B, S, D), "W_Q": torch.randn(D, D),
              "W_K": torch.randn(D, KV * dh), "W_V": torch.randn(D, KV * dh),
              "W_O": torch.randn(D, D)}
    lines = block.split("The engine ran:\n", 1)[1].splitlines()
    n = 0
    for line in lines:
        lm = re.match(r"^    (\S.*?)\s+-> (.*)$", line)
        if not lm:
            break
        code, claim = lm.group(1), lm.group(2)
        n += 1
        before = storages(ns)
        am = re.match(r"^(\w+) = (.*)$", code)
        try:
            if am:
                exec(code, ns)
                t = ns[am.group(1)]
            else:
                t = eval(code, ns)
        except RuntimeError as e:
            if claim.startswith("error: "):  # the engine's error, in PyTorch's words
                want = claim[len("error: "):]
                if want not in str(e):
                    return f"{code}: PyTorch raised '{e}', the quiz says '{want}'"
                continue
            return f"{code}: PyTorch raised '{e}' (the quiz says {claim})"
        if claim.startswith("error: "):
            return f"{code}: PyTorch ran it, the quiz says {claim}"
        cm = re.match(TUPLE + r" strides " + TUPLE + r", (.*)$", claim)
        if not cm:
            return f"{code}: cannot read the claim '{claim}'"
        shape, strides, mem = tup(cm.group(1)), tup(cm.group(2)), cm.group(3)
        if tuple(t.shape) != shape:
            return f"{code}: PyTorch shape {tuple(t.shape)}, the quiz says {shape}"
        if tuple(t.stride()) != strides:
            return f"{code}: PyTorch strides {tuple(t.stride())}, the quiz says {strides}"
        shared = t.storage().data_ptr() in before
        if mem.startswith(("view", "same storage")) and not shared:
            return f"{code}: PyTorch made a new storage, the quiz says {mem}"
        if mem.startswith(("new buffer", "copy", "new storage")) and shared:
            return f"{code}: PyTorch made a view, the quiz says {mem}"
        bm = re.match(r"(?:copy|new storage): (\d+) bytes", mem)
        if bm and int(bm.group(1)) != t.numel() * t.element_size():
            return f"{code}: PyTorch wrote {t.numel() * t.element_size()} bytes, the quiz says {mem}"
    return None if n else "no line after 'The engine ran:'"


def run_decode(block):
    """A decode listing: its trace (the cache made by torch.zeros, the new
    token's q, k, v, the cat, the repeats, scores and o) run on random x and
    weights of the sizes it states, each line's shape, strides and memory as
    the quiz claims."""
    m = re.search(r"x is \(B, 1, D\) = \((\d+), 1, (\d+)\)\.\n"
                  r"H = (\d+) query heads?, KV = (\d+) kv heads?, dh = (\d+)\.", block)
    if not m:
        return "no sizes line"
    if "The engine ran:\n" not in block:
        return "no 'The engine ran:' trace"
    B, D, H, KV, dh = (int(v) for v in m.groups())
    torch.manual_seed(0)
    ns = {"torch": torch, "math": math, "x": torch.randn(B, 1, D),
          "W_Q": torch.randn(D, H * dh), "W_K": torch.randn(D, KV * dh),
          "W_V": torch.randn(D, KV * dh)}
    return run_pipeline(block, ns)


def run_bugs(block):
    m = re.search(r"x is \((B, S|S, B), D\) = \((\d+), (\d+), (\d+)\)[.:].*\n"
                  r"H = (\d+) query heads?, KV = (\d+) kv heads?, dh = (\d+)[.;]", block)
    if not m:
        return "no sizes line"
    a, b, D, H, KV, dh = (int(v) for v in m.groups()[1:])
    B, S = (a, b) if m.group(1) == "B, S" else (b, a)
    code = [re.sub(r"^ *\d+  ", "", line) for line in block.splitlines()
            if re.match(r"^ {1,2}\d+  \S", line)]
    torch.manual_seed(0)
    ns = {"torch": torch, "math": math, "B": B, "S": S, "D": D, "H": H, "KV": KV, "dh": dh,
          "x": torch.randn(a, b, D), "W_q": torch.randn(D, D), "W_k": torch.randn(D, KV * dh),
          "W_v": torch.randn(D, KV * dh), "W_o": torch.randn(D, D)}
    raised = re.search(r"buggy: RuntimeError: (.*)", block)
    try:
        for c in code:
            exec(c, ns)
    except RuntimeError as e:
        if not raised:
            return f"{c}: PyTorch raised '{e}', the quiz says the program runs"
        return None  # the engine's words are its own (not checked here): that it raises is
    if raised:
        return f"PyTorch ran the program, the quiz says it raises '{raised.group(1)}'"
    if tuple(ns["y"].shape) != (B, S, D):
        return f"y is {tuple(ns['y'].shape)}, not {(B, S, D)}"
    return None


def answer_of(block):
    m = re.search(r"the answer is [a-f]\) (.*?)\.?\n", block)
    return m.group(1) if m else None


def run_rope(block):
    """A rope angle question: its inv_freq line runs in PyTorch, and the angle of
    float j at position p (pair i = j mod dh/2 in half, j // 2 in interleaved)
    is the key."""
    m = re.search(r"RoPE with the (half|interleaved) layout, d_head (\d+)", block)
    fm = re.search(r"By what angle is float (\d+) of the head vector of the token at position "
                   r"(\d+)", block)
    line = next(l[4:] for l in block.splitlines() if l.startswith("    inv_freq = "))
    ns = {"torch": torch}
    exec(line, ns)
    layout, dh = m.group(1), int(m.group(2))
    j, p = int(fm.group(1)), int(fm.group(2))
    i = j % (dh // 2) if layout == "half" else j // 2
    want = p * ns["inv_freq"][i].item()
    key = float(answer_of(block).split()[0])
    if abs(key - want) > 1e-3 * want:
        return f"PyTorch's angle {want:.6g}, the quiz's key {key}"
    return None


def run_flash(block):
    """m or l of a row after a K/V tile: PyTorch from the scores shown."""
    s = torch.tensor([float(v) for v in re.search(r"keys 0\.\.\d+:\n +(.*)\n", block)
                      .group(1).split()], dtype=torch.float64)
    c1 = int(re.search(r"tile \d+ holds keys \d+\.\.(\d+)", block).group(1)) + 1
    m = s[:c1].max()
    want = torch.exp(s[:c1] - m).sum().item() if "running sum l" in block else m.item()
    key = float(answer_of(block))
    if abs(key - want) > 2e-3:
        return f"PyTorch gives {want:.5f}, the quiz's key {key}"
    return None


def main():
    args = sys.argv[1:]
    binary, seeds, count = args[0], 8, 40
    topics = "shapes,strides,offsets,views,gqa,decode,bugs,rope,flash"
    i = 1
    while i < len(args):
        if args[i] == "--seeds":
            seeds, i = int(args[i + 1]), i + 2
        elif args[i] == "--count":
            count, i = int(args[i + 1]), i + 2
        elif args[i] == "--topics":
            topics, i = args[i + 1], i + 2
        else:
            sys.exit(f"ref_listings.py: unknown argument {args[i]}")
    ran = failed = 0
    for topic in topics.split(","):
        t_ran = t_failed = 0
        for seed in range(1, seeds + 1):
            for k, block in enumerate(questions(binary, topic, seed, count)):
                if "tokens are cached" in block:
                    check = run_decode
                elif "One line is wrong" in block:
                    check = run_bugs
                elif "inv_freq = 1.0 / " in block:
                    check = run_rope
                elif "has these scaled scores s over the keys" in block:
                    check = run_flash
                elif "The engine ran:\n" in block:
                    check = run_pipeline
                else:
                    continue  # no code shown
                why = check(block)
                t_ran += 1
                if why:
                    t_failed += 1
                    if t_failed <= 3:
                        print(f"not ok - {topic} seed {seed} question {k + 1}: {why}\n"
                              + "".join("#   " + l + "\n" for l in block.splitlines()[:30]))
        print(f"# {topic}: {t_ran} listings run in PyTorch, {t_failed} failed")
        ran += t_ran
        failed += t_failed
    print(f"listings: {ran} run, {failed} failed (torch {torch.__version__})")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
