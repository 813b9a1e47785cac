#!/usr/bin/env python3
"""bench_mha_torch.py - PyTorch 1.13's time for the work of one mha_run.

The pipeline of src/README.md as tests/ref_mha.py recomputes it, in PyTorch
on one thread (torch.set_num_threads(1)), float32, the same sizes: steps 0
to 10, then the tensors a run also keeps for teaching (K and V by
repeat_interleave, the one big head, the softmax of unscaled scores).  The
values are seeded tenths as in mhaviz; they do not change the time.

Usage: bench_mha_torch.py [--runs N] [--batch N] SEQ:D_MODEL:HEADS ...
Prints one line per size: "SEQ D_MODEL HEADS median_ms min_ms cpu_ms".
Exit 2 when torch cannot be imported.
"""
import statistics
import sys
import time

try:
    import torch
except ImportError:
    print("bench_mha_torch: no torch (Debian: apt-get install python3-torch)", file=sys.stderr)
    sys.exit(2)


def tenths(g, *shape):
    return (torch.randint(-10, 11, shape, generator=g).float() / 10).contiguous()


def one_run(B, S, D, H, KV, causal):
    """Everything mha_run computes, in its order."""
    dh, G = D // H, H // KV
    g = torch.Generator().manual_seed(1)
    x = tenths(g, B, S, D)
    w_q, w_k, w_v, w_o = (tenths(g, D, D), tenths(g, D, KV * dh), tenths(g, D, KV * dh),
                          tenths(g, D, D))
    q, k, v = x @ w_q, x @ w_k, x @ w_v                         # 1. project
    qh = q.view(B, S, H, dh).transpose(1, 2)                     # 2, 3
    kh = k.view(B, S, KV, dh).transpose(1, 2)
    vh = v.view(B, S, KV, dh).transpose(1, 2)
    q5 = qh.reshape(B, KV, G, S, dh)
    k5 = kh.unsqueeze(2).expand(B, KV, G, S, dh)
    v5 = vh.unsqueeze(2).expand(B, KV, G, S, dh)
    scores = (q5 @ k5.transpose(-2, -1)) * (1.0 / dh ** 0.5)      # 4. scores
    mask = torch.triu(torch.ones(S, S, dtype=torch.bool), 1) if causal else None

    def softmax(t):
        return torch.softmax(t.masked_fill(mask, float("-inf")) if causal else t, dim=-1)

    attn = softmax(scores)                                       # 5. softmax
    out_h = (attn @ v5).view(B, H, S, dh)                        # 6. weighted sum
    concat = out_h.transpose(1, 2).contiguous().view(B, S, D)    # 7, 8, 9
    out = concat @ w_o                                           # 10. output projection
    # for teaching: GQA by copying, one big head, the missing 1/sqrt(dh)
    k_rep = kh.repeat_interleave(G, dim=1)
    vh.repeat_interleave(G, dim=1)
    k_full = k_rep.transpose(1, 2).contiguous().view(B, 1, S, D)
    softmax((q.view(B, 1, S, D) @ k_full.transpose(-2, -1)) * (1.0 / D ** 0.5))
    softmax(scores * dh ** 0.5)
    return out


def main(argv):
    runs, batch, sizes = 5, 1, []
    i = 0
    while i < len(argv):
        if argv[i] in ("--runs", "--batch") and i + 1 < len(argv):
            if argv[i] == "--runs":
                runs = int(argv[i + 1])
            else:
                batch = int(argv[i + 1])
            i += 2
            continue
        sizes.append(tuple(int(p) for p in argv[i].split(":")))
        i += 1
    torch.set_num_threads(1)
    with torch.no_grad():
        for S, D, H in sizes:
            one_run(batch, min(S, 8), min(D, 8), 1, 1, False)  # warm up the library
            wall, cpu = [], []
            for _ in range(runs):
                t0, c0 = time.perf_counter(), time.process_time()
                one_run(batch, S, D, H, H, False)
                wall.append(time.perf_counter() - t0)
                cpu.append(time.process_time() - c0)
            print("%d %d %d %.1f %.1f %.1f" % (S, D, H, statistics.median(wall) * 1e3,
                                               min(wall) * 1e3, statistics.median(cpu) * 1e3))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
