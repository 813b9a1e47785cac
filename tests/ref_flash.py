#!/usr/bin/env python3
"""ref_flash.py - an independent reference for `mhaviz flash --json`.

For each configuration it runs `mhaviz export` (the pipeline's tensors) and
`mhaviz flash --json` with the same flags, then recomputes FlashAttention-2's
loop in plain Python (double precision, no numpy) from export's Q_heads,
K_heads and V_heads, the scale 1/sqrt(d_head) and the causal mask:

  - the tiles: loop order (batch, query head, q tile, K/V tile, from 0), the
    half-open spans, a tile absent exactly when causal and its first column is
    greater than its last row, a partly masked tile present whole;
  - each tile's m, l and O by the definitions of issue 18 over the keys of
    tiles 0..j (m = max s, l = sum exp(s - m), O = sum exp(s - m) v / l),
    computed here with the online update (rescale by exp(m_old - m_new)), so
    both the definition and FA2's recurrence are checked;
  - the O after each q tile's last tile against export's head_out;
  - bytes.naive and bytes.flash against the formulas, counted here tile by tile.

Usage: ref_flash.py MHAVIZ_BIN [--random N] [--seed N]
Runs the fixed cases below, then N random ones (default 30).  Exit 0 when
everything agrees, 1 with the differences otherwise.
"""
import json
import math
import random
import subprocess
import sys

TOL = 1e-5    # m, l, O against this file's double-precision loop
FINAL = 1e-6  # the last O against the pipeline's head_out (both float32 from mhaviz)

# (flags for both commands, block_q, block_k)
CASES = [
    ([], 2, 2),                                                   # the defaults: 2 x 2 tiles a head
    (["--causal"], 2, 2),
    (["--seq", "5", "--causal"], 2, 2),                           # blocks that do not divide S
    (["--seq", "7", "--d-model", "12", "--heads", "6", "--kv-heads", "2"], 3, 2),  # GQA
    (["--seq", "6", "--heads", "4", "--kv-heads", "1", "--causal"], 4, 3),         # MQA
    (["--batch", "2", "--seq", "5", "--causal", "--seed", "7"], 2, 3),             # batch > 1
    (["--seq", "3"], 8, 9),                                       # a block larger than S: one tile
    (["--seq", "9", "--causal"], 1, 1),
]


def close(a, b, tol):
    return a is not None and (abs(a - b) <= tol or abs(a - b) <= tol * abs(b))


def unflatten(data, shape):
    """row-major values -> nested lists of shape"""
    if len(shape) == 1:
        return list(data)
    step = len(data) // shape[0]
    return [unflatten(data[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def run_json(binary, args):
    p = subprocess.run([binary] + args, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr.strip()))
    return json.loads(p.stdout)


def reference(exp, bq, bk):
    """The tiles as FA2's loop makes them, and the bytes of both formulas."""
    cfg = exp["config"]
    B, S, H, KV, causal = cfg["batch"], cfg["seq"], cfg["heads"], cfg["kv_heads"], cfg["causal"]
    dh, G = cfg["d_head"], cfg["heads"] // cfg["kv_heads"]
    t = exp["tensors"]
    Q = unflatten(t["Q_heads"]["data"], [B, H, S, dh])
    K = unflatten(t["K_heads"]["data"], [B, KV, S, dh])
    V = unflatten(t["V_heads"]["data"], [B, KV, S, dh])
    scale = 1 / math.sqrt(dh)
    bq, bk = min(bq, S), min(bk, S)
    nq, nk = -(-S // bq), -(-S // bk)
    tiles, flash = [], 0
    for b in range(B):
        for h in range(H):
            kv = h // G
            flash += S * dh * 4  # read Q once (a q tile at a time)
            for i in range(nq):
                r0, r1 = i * bq, min((i + 1) * bq, S)
                m = [-math.inf] * (r1 - r0)
                l = [0.0] * (r1 - r0)
                acc = [[0.0] * dh for _ in range(r1 - r0)]
                for j in range(nk):
                    c0, c1 = j * bk, min((j + 1) * bk, S)
                    if causal and c0 > r1 - 1:
                        continue  # wholly above the diagonal: never loaded
                    flash += 2 * (c1 - c0) * dh * 4  # this K and V tile
                    for r in range(r1 - r0):
                        row = r0 + r
                        s = [sum(Q[b][h][row][d] * K[b][kv][c][d] for d in range(dh)) * scale
                             if not (causal and c > row) else -math.inf for c in range(c0, c1)]
                        m_new = max([m[r]] + s)
                        alpha = math.exp(m[r] - m_new) if m[r] != -math.inf else 0.0
                        p = [math.exp(x - m_new) if x != -math.inf else 0.0 for x in s]
                        l[r] = alpha * l[r] + sum(p)
                        acc[r] = [alpha * acc[r][d] + sum(p[c] * V[b][kv][c0 + c][d]
                                                         for c in range(c1 - c0))
                                  for d in range(dh)]
                        m[r] = m_new
                    tiles.append({"b": b, "h": h, "qtile": i, "ktile": j, "rows": [r0, r1],
                                  "cols": [c0, c1], "m": list(m), "l": list(l),
                                  "O": [[a / l[r] for a in acc[r]] for r in range(r1 - r0)]})
                flash += (r1 - r0) * (dh + 1) * 4  # write O and the row logsumexp
    naive = B * H * 4 * (4 * S * dh + 4 * S * S)
    return tiles, {"naive": naive, "flash": flash}


def compare(exp, got, bq, bk):
    errs = []
    want_cfg = dict(exp["config"], block_q=bq, block_k=bk)
    if got.get("config") != want_cfg:
        errs.append("config %r, expected %r" % (got.get("config"), want_cfg))
    if set(got) != {"config", "tiles", "bytes"}:
        errs.append("keys %s, expected config, tiles, bytes" % sorted(got))
    tiles, nbytes = reference(exp, bq, bk)
    if got.get("bytes") != nbytes:
        errs.append("bytes %r, the formulas give %r" % (got.get("bytes"), nbytes))
    gt = got.get("tiles", [])
    if len(gt) != len(tiles):
        errs.append("%d tiles, expected %d" % (len(gt), len(tiles)))
    keys = ["b", "h", "qtile", "ktile", "rows", "cols", "m", "l", "O"]
    for n, (g, w) in enumerate(zip(gt, tiles)):
        where = "tile %d (b %d h %d q %d k %d)" % (n, w["b"], w["h"], w["qtile"], w["ktile"])
        if sorted(g) != sorted(keys):
            errs.append("%s: keys %s" % (where, sorted(g)))
            continue
        for k in keys[:6]:
            if g[k] != w[k]:
                errs.append("%s: %s = %r, expected %r" % (where, k, g[k], w[k]))
        for k in ("m", "l"):
            if len(g[k]) != len(w[k]) or not all(close(a, b, TOL) for a, b in zip(g[k], w[k])):
                errs.append("%s: %s = %r, reference %r" % (where, k, g[k], w[k]))
        flat_g = [x for row in g["O"] for x in row]
        flat_w = [x for row in w["O"] for x in row]
        if len(flat_g) != len(flat_w) or not all(close(a, b, TOL) for a, b in zip(flat_g, flat_w)):
            errs.append("%s: O = %r, reference %r" % (where, g["O"], w["O"]))
        if len(errs) > 20:
            return errs
    # the O after each q tile's last tile is the pipeline's head_out
    cfg = exp["config"]
    H, S, dh = cfg["heads"], cfg["seq"], cfg["d_head"]
    head_out = exp["tensors"]["head_out"]["data"]  # (B, H, S, dh) row-major
    final = {}
    for g in gt:
        final[(g["b"], g["h"], g["qtile"])] = g
    rows = 0
    for (b, h, _), g in final.items():
        for r, row in enumerate(g["O"]):
            base = ((b * H + h) * S + g["rows"][0] + r) * dh
            for d, x in enumerate(row):
                if not close(x, head_out[base + d], FINAL):
                    errs.append("final O[%d, %d, %d, %d] = %r, head_out %r"
                                % (b, h, g["rows"][0] + r, d, x, head_out[base + d]))
            rows += 1
    if rows != cfg["batch"] * H * S:
        errs.append("final O covers %d rows, head_out has %d" % (rows, cfg["batch"] * H * S))
    return errs


def random_case(rng):
    heads = rng.choice([1, 2, 3, 4, 6])
    kv = rng.choice([d for d in range(1, heads + 1) if heads % d == 0])
    dh = rng.randint(1, 4)
    flags = ["--batch", str(rng.randint(1, 2)), "--seq", str(rng.randint(1, 10)),
             "--d-model", str(heads * dh), "--heads", str(heads), "--kv-heads", str(kv),
             "--seed", str(rng.randint(0, 1000))]
    if rng.random() < 0.5:
        flags.append("--causal")
    return flags, rng.randint(1, 6), rng.randint(1, 6)


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    binary, n_random, seed = args[0], 30, 18
    i = 1
    while i < len(args):
        if args[i] in ("--random", "--seed") and i + 1 < len(args):
            if args[i] == "--random":
                n_random = int(args[i + 1])
            else:
                seed = int(args[i + 1])
            i += 2
        else:
            sys.exit("ref_flash.py: unknown argument %r" % args[i])
    rng = random.Random(seed)
    cases = CASES + [random_case(rng) for _ in range(n_random)]
    failed, tiles = 0, 0
    for flags, bq, bk in cases:
        label = " ".join(flags + ["--block-q", str(bq), "--block-k", str(bk)])
        try:
            exp = run_json(binary, ["export"] + flags)
            got = run_json(binary, ["flash", "--json", "--block-q", str(bq), "--block-k", str(bk)]
                           + flags)
            errs = compare(exp, got, bq, bk)
        except (RuntimeError, ValueError, KeyError, TypeError) as e:
            errs = ["%s: %s" % (type(e).__name__, e)]
            got = {}
        if errs:
            failed += 1
            print("ref_flash.py: %s: %d differences" % (label, len(errs)))
            for e in errs[:10]:
                print("  " + e)
        else:
            tiles += len(got["tiles"])
    if failed:
        print("ref_flash.py: %d of %d configurations differ" % (failed, len(cases)))
        return 1
    print("ref_flash.py: %d configurations, %d tiles: m, l, O within %g, final O = head_out "
          "within %g, bytes = the formulas" % (len(cases), tiles, TOL, FINAL))
    return 0


if __name__ == "__main__":
    sys.exit(main())
