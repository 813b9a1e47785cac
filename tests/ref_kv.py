#!/usr/bin/env python3
"""ref_kv.py - an independent reference for `mhaviz kv --json`.

Recomputes every figure of `mhaviz kv --json` in plain Python from the
config.json values each preset cites (the table CONFIGS below, in the
configs' own field names), read as a serving engine reads them:

  - which layers cache what: K and V of head_dim per kv head, or MLA's latent
    of kv_lora_rank + qk_rope_head_dim (num_key_value_heads unused);
  - how many tokens each layer keeps at context T: min(T, its window or
    chunk), from sliding_window / sliding_window_pattern (Gemma 3),
    layer_types (gpt-oss), attention_chunk_size / no_rope_layer_interval
    (Llama 4), sliding_window (Mistral 7B v0.1); every token otherwise;
  - the bytes: per token, per sequence, in total, per layer kind, and the
    MHA / own / MQA comparison, at several contexts and every dtype;
  - `--paged`: blocks, reserved, used and wasted bytes for random lengths,
    block sizes and shared prefixes, against contiguous preallocation, by
    the formulas of issue 19.

It also checks that every preset `mhaviz kv --list` shows has a reference
here, and that each config value used is cited ("field=value") in the
preset's source or note.

Usage: ref_kv.py MHAVIZ_BIN.  Exit 0 when everything agrees, 1 with the
differences listed otherwise.
"""
import json
import random
import subprocess
import sys

BITS = {"fp32": 32, "fp16": 16, "bf16": 16, "fp8": 8, "int4": 4}

# What each preset's cited config says (field names as in the file it
# cites); "rule" names how an engine turns it into layers.
CONFIGS = {
    "transformer-base": {"rule": "paper", "N": 6, "h": 8, "d_k": 64},
    "gpt2-small": {"rule": "gpt2", "n_layer": 12, "n_head": 12, "n_embd": 768, "n_ctx": 1024},
    "llama-2-7b": {"num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 32,
                   "hidden_size": 4096, "max_position_embeddings": 4096},
    "llama-2-70b": {"num_hidden_layers": 80, "num_attention_heads": 64, "num_key_value_heads": 8,
                    "hidden_size": 8192, "max_position_embeddings": 4096},
    "llama-3-8b": {"num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
                   "hidden_size": 4096, "max_position_embeddings": 8192},
    "llama-3-70b": {"num_hidden_layers": 80, "num_attention_heads": 64, "num_key_value_heads": 8,
                    "hidden_size": 8192, "max_position_embeddings": 8192},
    "mistral-7b": {"num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
                   "hidden_size": 4096, "sliding_window": 4096},
    "falcon-7b": {"rule": "falcon", "num_hidden_layers": 32, "num_attention_heads": 71,
                  "hidden_size": 4544, "multi_query": "true", "new_decoder_architecture": "false",
                  "max_position_embeddings": 2048},
    "llama-4-maverick": {"rule": "llama4", "num_hidden_layers": 48, "num_attention_heads": 40,
                         "num_key_value_heads": 8, "head_dim": 128, "hidden_size": 5120,
                         "attention_chunk_size": 8192, "no_rope_layer_interval": 4,
                         "max_position_embeddings": 1048576},
    "llama-3.1-8b": {"num_hidden_layers": 32, "num_attention_heads": 32,
                     "num_key_value_heads": 8, "hidden_size": 4096,
                     "max_position_embeddings": 131072},
    "mistral-small-3": {"num_hidden_layers": 40, "num_attention_heads": 32,
                        "num_key_value_heads": 8, "head_dim": 128, "hidden_size": 5120,
                        "max_position_embeddings": 32768},
    "gemma-3-27b": {"rule": "gemma3", "num_hidden_layers": 62, "num_attention_heads": 32,
                    "num_key_value_heads": 16, "head_dim": 128, "hidden_size": 5376,
                    "sliding_window": 1024, "sliding_window_pattern": 6,
                    "max_position_embeddings": 131072},
    "gemma-3-1b": {"rule": "gemma3", "num_hidden_layers": 26, "num_attention_heads": 4,
                   "num_key_value_heads": 1, "head_dim": 256, "hidden_size": 1152,
                   "sliding_window": 512, "sliding_window_pattern": 6,
                   "max_position_embeddings": 32768},
    "gpt-oss-120b": {"rule": "layer_types", "num_hidden_layers": 36, "num_attention_heads": 64,
                     "num_key_value_heads": 8, "head_dim": 64, "hidden_size": 2880,
                     "sliding_window": 128, "max_position_embeddings": 131072,
                     "layer_types": ["sliding_attention", "full_attention"] * 18},
    "gpt-oss-20b": {"rule": "layer_types", "num_hidden_layers": 24, "num_attention_heads": 64,
                    "num_key_value_heads": 8, "head_dim": 64, "hidden_size": 2880,
                    "sliding_window": 128, "max_position_embeddings": 131072,
                    "layer_types": ["sliding_attention", "full_attention"] * 12},
    "deepseek-v3": {"rule": "mla", "num_hidden_layers": 61, "num_attention_heads": 128,
                    "num_key_value_heads": 128, "kv_lora_rank": 512, "qk_rope_head_dim": 64,
                    "qk_nope_head_dim": 128, "v_head_dim": 128, "hidden_size": 7168,
                    "max_position_embeddings": 163840},
    "deepseek-v2-lite": {"rule": "mla", "num_hidden_layers": 27, "num_attention_heads": 16,
                         "num_key_value_heads": 16, "kv_lora_rank": 512, "qk_rope_head_dim": 64,
                         "qk_nope_head_dim": 128, "hidden_size": 2048,
                         "max_position_embeddings": 163840},
}

# Trained contexts the presets give that their config does not (cited elsewhere).
CONTEXT_ELSEWHERE = {"mistral-7b": 8192}  # the Mistral 7B paper, Table 1


def model(name):
    """The model as an engine reads its config: heads, kv heads, head_dim, the
    per-layer (numbers cached per token, tokens kept or None) and the context."""
    c = CONFIGS[name]
    rule = c.get("rule", "llama")
    if rule == "paper":
        L, H, kvh, dh, ctx = c["N"], c["h"], c["h"], c["d_k"], 0
    elif rule == "gpt2":
        L, H, ctx = c["n_layer"], c["n_head"], c["n_ctx"]
        kvh, dh = H, c["n_embd"] // H
    else:
        L, H = c["num_hidden_layers"], c["num_attention_heads"]
        kvh = c.get("num_key_value_heads", H)
        if rule == "falcon":  # FalconAttention: multi_query and the old architecture: one kv head
            kvh = 1 if c["multi_query"] == "true" and c["new_decoder_architecture"] == "false" else H
        dh = c.get("head_dim", c["hidden_size"] // H)
        if rule == "mla":
            dh = c["qk_nope_head_dim"]  # the paper's d_h: the MHA comparison's head width
        ctx = c.get("max_position_embeddings", CONTEXT_ELSEWHERE.get(name, 0))
    caps = [None] * L
    if rule == "gemma3":
        caps = [None if (i + 1) % c["sliding_window_pattern"] == 0 else c["sliding_window"]
                for i in range(L)]
    elif rule == "layer_types":
        assert len(c["layer_types"]) == L
        caps = [c["sliding_window"] if t == "sliding_attention" else None for t in c["layer_types"]]
    elif rule == "llama4":
        caps = [c["attention_chunk_size"] if (i + 1) % c["no_rope_layer_interval"] else None
                for i in range(L)]
    elif "sliding_window" in c:
        caps = [c["sliding_window"]] * L
    if rule == "mla":
        elems = c["kv_lora_rank"] + c["qk_rope_head_dim"]  # c_kv and k_pe, shared by every head
    else:
        elems = 2 * kvh * dh  # K and V
    kind = "MLA" if rule == "mla" else "MHA" if kvh == H else "MQA" if kvh == 1 else "GQA"
    local = "chunked" if rule == "llama4" else "sliding"
    return {"layers": L, "heads": H, "kv_heads": kvh, "d_head": dh, "elems": elems, "caps": caps,
            "context": ctx, "kind": kind, "local": local}


def nbytes(elems, bits):
    assert (elems * bits) % 8 == 0
    return elems * bits // 8


def expect(name, dtype, T, batch):
    """Every figure of kv --json, from the config alone."""
    m, bits = model(name), BITS[dtype]
    layer = nbytes(m["elems"], bits)
    kept = [T if cap is None else min(T, cap) for cap in m["caps"]]
    seq = sum(k * layer for k in kept)
    kinds = []
    full = [k for k, cap in zip(kept, m["caps"]) if cap is None]
    loc = [(k, cap) for k, cap in zip(kept, m["caps"]) if cap is not None]
    if full:
        kinds.append({"kind": "full", "layers": len(full), "window": 0, "tokens_kept": T,
                      "bytes_per_token_layer": layer, "bytes_per_sequence": len(full) * T * layer})
    if loc:
        cap = loc[0][1]
        assert all(c == cap for _, c in loc)
        kinds.append({"kind": m["local"], "layers": len(loc), "window": cap,
                      "tokens_kept": min(T, cap), "bytes_per_token_layer": layer,
                      "bytes_per_sequence": sum(k for k, _ in loc) * layer})

    def variant(label, kvh, elems, own):
        per_layer = nbytes(elems, bits)
        s = sum(k * per_layer for k in kept)
        return {"variant": label, "this_model": own, "kv_heads": kvh,
                "bytes_per_token": m["layers"] * per_layer, "bytes_per_sequence": s,
                "total_bytes": s * batch}

    H, dh, mla = m["heads"], m["d_head"], m["kind"] == "MLA"
    variants = []
    if mla or m["kv_heads"] != H:
        variants.append(variant("MHA", H, 2 * H * dh, False))
    variants.append(variant(m["kind"], 0 if mla else m["kv_heads"], m["elems"], True))
    if mla or m["kv_heads"] != 1:
        variants.append(variant("MQA", 1, 2 * dh, False))
    return {"bytes_per_token": m["layers"] * layer, "bytes_per_sequence": seq,
            "total_bytes": seq * batch, "layer_kinds": kinds, "variants": variants,
            "hypothetical": bool(m["context"]) and T > m["context"],
            "model": {"kind": m["kind"], "layers": m["layers"], "heads": H,
                      "trained_context": m["context"]}}


def paged_expect(lengths, N, P, context, ptb):
    """Issue 19's formulas, written out."""
    S = P // N
    blocks = [-(-L // N) for L in lengths]
    total = S + sum(b - S for b in blocks)
    used = (S * N + sum(L - S * N for L in lengths)) * ptb
    reserved = total * N * ptb
    creserved = len(lengths) * context * ptb
    return {"block_size": N, "shared_prefix": P, "shared_blocks": S,
            "shared_refcount": len(lengths) if P else 0, "prefix_tail_tokens": P % N,
            "sequences": [{"length": L, "blocks": b, "own_blocks": b - S,
                           "last_block_tokens": L - (b - 1) * N, "copy_on_write": P % N != 0}
                          for L, b in zip(lengths, blocks)],
            "total_blocks": total, "reserved_bytes": reserved, "used_bytes": used,
            "waste_bytes": reserved - used,
            "contiguous": {"context": context, "reserved_bytes": creserved,
                           "used_bytes": sum(lengths) * ptb,
                           "waste_bytes": creserved - sum(lengths) * ptb}}


def run(bin_, args):
    out = subprocess.run([bin_, "kv"] + args + ["--json"], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError("mhaviz kv %s: exit %d: %s" % (" ".join(args), out.returncode,
                                                          out.stderr.strip()))
    return json.loads(out.stdout)


def compare(where, want, got, errs):
    if isinstance(want, dict):
        for k, v in want.items():
            if k not in got:
                errs.append("%s: no key %s" % (where, k))
            else:
                compare("%s.%s" % (where, k), v, got[k], errs)
    elif isinstance(want, list):
        if len(want) != len(got):
            errs.append("%s: %d entries, want %d" % (where, len(got), len(want)))
        for i, (w, g) in enumerate(zip(want, got)):
            compare("%s[%d]" % (where, i), w, g, errs)
    elif want != got:
        errs.append("%s = %r, want %r" % (where, got, want))


def cited(name, text, errs):
    """Every config value used is written "field=value" where the preset cites it."""
    for k, v in CONFIGS[name].items():
        if k in ("rule", "layer_types"):
            continue
        if k == "d_k":
            k = "d_k=d_v"
        if "%s=%s" % (k, v) not in text:
            errs.append("%s: '%s=%s' is not cited in its source or note" % (name, k, v))


def main():
    bin_ = sys.argv[1]
    errs, checks = [], 0
    listed = subprocess.run([bin_, "kv", "--list"], capture_output=True, text=True).stdout
    names = [l.split()[0] for l in listed.splitlines()[1:] if l.strip()]
    for n in names:
        if n not in CONFIGS:
            errs.append("preset %s has no reference config in ref_kv.py" % n)
    for n in CONFIGS:
        if n not in names:
            errs.append("ref_kv.py's %s is not a preset" % n)
    for name in CONFIGS:
        if name not in names:
            continue
        m = model(name)
        contexts = {1, 100, 1000, 1024, 4096, 8192, 100000}
        if m["context"]:
            contexts |= {m["context"], 3 * m["context"]}
        for cap in m["caps"]:
            if cap:
                contexts |= {cap - 1, cap, cap + 1}
        for i, T in enumerate(sorted(contexts)):
            for dtype in BITS:
                batch = 1 + (i % 3)
                got = run(bin_, ["--preset", name, "--context", str(T), "--dtype", dtype,
                                 "--batch", str(batch)])
                compare("%s T=%d %s batch %d" % (name, T, dtype, batch),
                        expect(name, dtype, T, batch), got, errs)
                checks += 1
        cited(name, got["model"]["source"] + " " + got["model"]["note"], errs)
    # the issue's own figures
    ds = run(bin_, ["--preset", "deepseek-v3", "--dtype", "bf16"])
    if ds["bytes_per_token"] != 61 * 576 * 2 or ds["bytes_per_token"] != 70272:
        errs.append("deepseek-v3 bf16: %d B/token, want 70,272" % ds["bytes_per_token"])
    l3 = run(bin_, ["--preset", "llama-3-70b", "--dtype", "bf16"])
    if l3["bytes_per_token"] != 327680:
        errs.append("llama-3-70b bf16: %d B/token, want 327,680" % l3["bytes_per_token"])
    # --paged against the formulas, for random lengths, block sizes and prefixes
    rng = random.Random(19)
    for case in range(150):
        n = rng.randint(1, 9)
        lengths = [rng.randint(1, 3000) for _ in range(n)]
        N = rng.choice([1, 2, 3, 7, 16, 16, 32, 128, 5000])
        P = rng.choice([0, 0, rng.randint(0, min(lengths))])
        context = max(lengths) + rng.choice([0, 1, 500, 8192])
        name = rng.choice(sorted(CONFIGS))
        dtype = rng.choice(sorted(BITS))
        args = ["--preset", name, "--dtype", dtype, "--context", str(context), "--paged",
                "--lengths", ",".join(map(str, lengths))]
        if N != 16 or rng.random() < 0.5:
            args += ["--block-size", str(N)]
        if P or rng.random() < 0.5:
            args += ["--shared-prefix", str(P)]
        got = run(bin_, args)
        ptb = expect(name, dtype, context, n)["bytes_per_token"]
        compare("paged case %d (%s)" % (case, " ".join(args)),
                paged_expect(lengths, N, P, context, ptb), got["paged"], errs)
        checks += 1
    for e in errs[:40]:
        print("not ok: " + e)
    print("ref_kv: %d runs compared, %d differences" % (checks, len(errs)))
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
