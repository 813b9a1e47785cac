#!/usr/bin/env python3
"""ref_puzzles.py - the puzzles' reference answers and classic wrong answers,
run in PyTorch 1.13 on the puzzle's own sizes, against the playground.

Each puzzle of src/content/puzzle.c (its given tensors, reference and wrong
answer, copied here by hand: an independent statement of what they are) is
run twice: in torch, on tensors holding 1, 2, 3, ... as the checker builds
them, and in `mhaviz play --json` configured with the same sizes.  Checked:
  - the reference gives the same shape, strides and dtype in both, and it
    is a view in torch (shares the given's storage) exactly when mhaviz
    says 0 bytes copied;
  - in torch the wrong answer really is wrong: it raises, or its dtype,
    shape, values or (for a no-copy puzzle) strides differ from the
    reference's.
Usage: ref_puzzles.py MHAVIZ_BIN   (needs torch: Debian's /usr/bin/python3)
Exit 0 when everything agrees, 1 with the differences listed.
"""
import json
import re
import subprocess
import sys

import torch

SIZES = {"B": 2, "S": 3, "H": 4, "KV": 2, "G": 2, "dh": 2, "D": 8, "T": 3, "T_max": 5}

# name: (given [(name, shape)], reference, wrong, strides checked)
PUZZLES = {
    "split_heads": ([("Q", "B, S, D")], "Q.view(B, S, H, dh).transpose(1, 2)",
                    "Q.view(B, H, S, dh)", False),
    "merge_heads": ([("O", "B, H, S, dh")], "O.transpose(1, 2).reshape(B, S, D)",
                    "O.reshape(B, S, D)", False),
    "k_transposed": ([("K", "B, S, D")], "K.view(B, S, H, dh).permute(0, 2, 3, 1)",
                     "K.view(B, H, dh, S)", True),
    "unpermute": ([("w", "B, H, S, dh")], "w.view(B, S, H, dh).transpose(1, 2)",
                  "w.transpose(1, 2)", False),
    "fused_qkv": ([("qkv", "B, S, 3 * D")], "qkv[..., D:2 * D].view(B, S, H, dh).transpose(1, 2)",
                  "qkv.view(B, S, H, 3 * dh)[..., dh:2 * dh].transpose(1, 2)", True),
    "last_query": ([("Q", "B, H, S, dh")], "Q[:, :, -1:]", "Q[:, :, -1]", True),
    "mqa_expand": ([("k", "B, 1, T, dh")], "k.expand(B, H, T, dh)", "k.repeat(1, H, 1, 1)", True),
    "gqa_expand": ([("K", "B, KV, T, dh")], "K[:, :, None].expand(B, KV, G, T, dh)",
                   "K.unsqueeze(2).repeat(1, 1, G, 1, 1)", True),
    "repeat_kv": ([("K", "B, KV, T, dh")], "K.repeat_interleave(G, dim=1)",
                  "K.repeat(1, G, 1, 1)", False),
    "causal_mask": ([("scores", "B, H, S, S")], "torch.ones(S, S).tril()",
                    "torch.ones(S, S).triu()", False),
    "kv_append": ([("cache", "B, KV, T, dh"), ("k_new", "B, KV, 1, dh")],
                  "torch.cat((cache, k_new), dim=2)", "torch.cat((k_new, cache), dim=2)", False),
    "meta_cache": ([("cache_k", "B, T_max, KV, dh")], "cache_k[:, :T].transpose(1, 2)",
                   "cache_k[:, :T].reshape(B, KV, T, dh)", True),
    "rotate_half": ([("x", "B, H, S, dh")],
                    "torch.cat((-x[..., dh // 2:], x[..., :dh // 2]), dim=-1)",
                    "torch.cat((x[..., dh // 2:], -x[..., :dh // 2]), dim=-1)", False),
    "batch_heads": ([("Q", "B, S, D")], "Q.view(B, S, H, dh).transpose(1, 2).reshape(B * H, S, dh)",
                    "Q.view(B * H, S, dh)", False),
}


def givens(given):
    env, nxt = dict(SIZES, torch=torch), 1.0
    for name, shape in given:
        sizes = eval("(%s,)" % shape, dict(SIZES))
        n = 1
        for s in sizes:
            n *= s
        env[name] = torch.arange(nxt, nxt + n, dtype=torch.float32).view(*sizes)
        nxt += n
    return env


def literal(line):
    """The line with T and T_max as numbers: `mhaviz play` binds B S D H KV G dh only."""
    line = re.sub(r"\bT_max\b", str(SIZES["T_max"]), line)
    return re.sub(r"\bT\b", str(SIZES["T"]), line)


def mhaviz(bin_, given, line):
    stmts = ["%s = torch.zeros(%s)" % (n, literal(s)) for n, s in given] + [literal(line)]
    out = subprocess.run([bin_, "play", "--json", "--no-save", "--batch", "2", "--seq", "3",
                          "--d-model", "8", "--heads", "4", "--kv-heads", "2"],
                         input="\n".join(stmts) + "\n", capture_output=True, text=True).stdout
    return json.loads(out.strip().split("\n")[-1])


def main():
    bin_, errs = sys.argv[1], []
    for name, (given, ref, wrong, strides) in PUZZLES.items():
        env = givens(given)
        r = eval(ref, env)
        j = mhaviz(bin_, given, ref)
        base = [env[g].storage().data_ptr() for g, _ in given]
        view = r.storage().data_ptr() in base
        if not j.get("ok"):
            errs.append("%s: mhaviz refuses the reference: %s" % (name, j.get("error")))
            continue
        if j["shape"] != list(r.shape) or j["strides"] != list(r.stride()):
            errs.append("%s: mhaviz %s %s, torch %s %s" % (name, j["shape"], j["strides"],
                                                           list(r.shape), list(r.stride())))
        if j["dtype"] != str(r.dtype):
            errs.append("%s: dtype %s, torch %s" % (name, j["dtype"], r.dtype))
        if view != (j["copied_bytes"] == 0):
            errs.append("%s: torch view %s, mhaviz copied %d bytes" % (name, view, j["copied_bytes"]))
        try:
            w = eval(wrong, env)
        except RuntimeError:
            continue
        same = (w.dtype == r.dtype and w.shape == r.shape and torch.equal(w, r) and
                (not strides or w.stride() == r.stride()))
        if same:
            errs.append("%s: the wrong answer %s is right in torch" % (name, wrong))
    for e in errs:
        print(e)
    print("ref_puzzles.py: %d puzzles, %d differences" % (len(PUZZLES), len(errs)))
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
