#!/usr/bin/env bash
# e2e_cache.sh - the KV cache's other forms in `mhaviz export`, against an
# independent PyTorch implementation (tests/ref_cache.py, skipped when no
# interpreter has torch): MLA (--mla R [--rope-dim dr], the expanded and the
# absorbed forms), the rolling window (--causal --window W, the band
# mask) and a batch sharing a prompt prefix (--shared-prefix P), on random
# configurations; decode --paged --shared-prefix against vLLM's block
# manager replayed; the default export untouched by them;
# their bad values exit 2 naming the flag.
#
# $MHAVIZ_BIN is the binary to drive; $MODE is plain or asan.
. "$(dirname "$0")/e2e_lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)

torch_py=
for py in python3 /usr/bin/python3; do
    if [ -z "$torch_py" ] && "$py" -c 'import torch' 2>/dev/null; then torch_py=$py; fi
done

# random configurations, the same on every run: heads divide d_model,
# kv_heads divide heads, an even d_head so that --rope can be on
RANDOM=19
random_config() {
    local H=$((1 + RANDOM % 4)) dh=$((2 * (1 + RANDOM % 3))) S=$((1 + RANDOM % 9))
    local KV=$H r
    [ $((RANDOM % 2)) = 0 ] && [ $((H % 2)) = 0 ] && KV=$((H / 2))
    r="--batch $((1 + RANDOM % 3)) --seq $S --d-model $((H * dh)) --heads $H --kv-heads $KV --seed $RANDOM"
    case $((RANDOM % 3)) in 1) r="$r --rope half" ;; 2) r="$r --rope interleaved --rope-theta 500000" ;; esac
    c=$r
}
configs=()
for _ in 1 2 3 4 5 6; do
    random_config
    m="--mla $((1 + RANDOM % 8))"
    [ $((RANDOM % 2)) = 0 ] && m="$m --rope-dim $((2 * (1 + RANDOM % 3)))"
    [ $((RANDOM % 2)) = 0 ] && c="$c --causal"
    configs+=("$c $m")
done
for _ in 1 2 3 4 5 6; do
    random_config
    configs+=("$c --causal --window $((1 + RANDOM % 5))")
done
for _ in 1 2 3 4; do # a batch sharing a prompt prefix, causal or not
    random_config
    S=$(sed 's/.*--seq \([0-9]*\).*/\1/' <<<"$c")
    c="$c --shared-prefix $((RANDOM % (S + 1)))"
    [ $((RANDOM % 3)) != 0 ] && c="$c --causal"
    configs+=("$c")
done
configs+=("--mla 512 --rope-dim 64 --d-model 64 --heads 1 --seq 3" "--seq 9 --causal --window 1"
    "--seq 6 --causal --window 3 --mla 2")

# each export is checked by ref_cache.py, all of them in one python (torch
# imported once: py_batch)
i=0
for c in "${configs[@]}"; do
    i=$((i + 1))
    # shellcheck disable=SC2086
    capture "$BIN" export $c
    if [ "$rc" -ne 0 ]; then
        fail "export $c" "exit $rc: $(head -c 200 "$tmp/err")"
        continue
    fi
    if [ -z "$torch_py" ]; then
        ok "export $c: exit 0 # SKIP no python with torch"
        continue
    fi
    cp "$tmp/out" "$tmp/export$i.json"
    py_queue "$tmp/ref$i" "$tmp/export$i.json" $c
done
[ -z "$torch_py" ] || py_batch "$torch_py" "$HERE/ref_cache.py"
i=0
for c in "${configs[@]}"; do
    i=$((i + 1))
    [ -f "$tmp/export$i.json" ] || continue
    if py_passed "$tmp/ref$i"; then
        ok "export $c agrees with PyTorch ($(tail -1 "$tmp/ref$i"))"
    else
        fail "export $c agrees with PyTorch" "it disagrees:"
        sed 's/^/# /' "$tmp/ref$i"
    fi
done

# decode --paged --shared-prefix: the block tables, reference counts and
# copies on write against vLLM's block manager replayed in Python, the pool
# against the issue's formula, on random batches, block sizes and prefixes
paged=()
for i in 1 2 3 4 5 6 7 8; do
    B=$((2 + RANDOM % 3)) S=$((2 + RANDOM % 9)) N=$((1 + RANDOM % 5))
    n=$((1 + RANDOM % S))
    P=$((RANDOM % 4 == 0 ? 0 : 1 + RANDOM % n))
    c="--batch $B --seq $S --heads 4 --kv-heads $((1 << (RANDOM % 3))) --block-size $N --shared-prefix $P --prompt $n"
    paged+=("$c")
    # shellcheck disable=SC2086
    capture "$BIN" decode --plain --paged $c
    if [ "$rc" -ne 0 ]; then
        fail "decode --paged $c" "exit $rc: $(head -c 200 "$tmp/err")"
        continue
    fi
    cp "$tmp/out" "$tmp/decode$i.txt"
    py_queue "$tmp/dref$i" "$tmp/decode$i.txt" --decode --d-model 8 $c
done
py_batch python3 "$HERE/ref_cache.py"
i=0
for c in "${paged[@]}"; do
    i=$((i + 1))
    [ -f "$tmp/decode$i.txt" ] || continue
    if py_passed "$tmp/dref$i"; then
        ok "decode --paged $c: $(tail -1 "$tmp/dref$i")"
    else
        fail "decode --paged $c against vLLM's block manager" "it disagrees:"
        sed 's/^/# /' "$tmp/dref$i"
    fi
done
usage_error "--shared-prefix 9: must be 0 to --seq 4" export --seq 4 --shared-prefix 9

# MLA sits beside the run: the run's own tensors and steps are the same bytes
capture "$BIN" export --seq 5 --heads 4 --causal
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(json.dumps([d["tensors"], d["steps"]]))' "$tmp/out" >"$tmp/a"
capture "$BIN" export --seq 5 --heads 4 --causal --mla 3
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(json.dumps([d["tensors"], d["steps"]]))' "$tmp/out" >"$tmp/b"
check "export --mla: the run's tensors and steps unchanged" cmp -s "$tmp/a" "$tmp/b"
capture "$BIN" export
check "export without --mla or --window: no \"mla\", no \"window\"" not grep -qE '"mla"|"window"' "$tmp/out"

usage_error "--mla 0" export --mla 0
usage_error "--mla" export --mla x
usage_error "--rope-dim 3" export --mla 4 --rope-dim 3
usage_error "--rope-dim 0" export --mla 4 --rope-dim 0
usage_error "--rope-dim" export --rope-dim 2
usage_error "--window 0" export --causal --window 0
usage_error "--window 3: needs --causal" export --window 3
usage_error "--window 0" decode --plain --window 0

# decode --window: the rolling buffer, and every row still the full pass's
capture "$BIN" decode --plain --window 3 --prompt 5 --kv-heads 2
if [ "$rc" = 0 ] && grep -q 'K and V each (1, 2, 3, 2)' "$tmp/out" &&
    grep -q 'token 5 -> slot 2 = 5 mod 3, over token 2 "sat"' "$tmp/out" &&
    grep -Eq "with the window's band mask: largest difference (0|[0-9.]+e-0[6-9])$" "$tmp/out"; then
    ok "decode --plain --window 3: 3 slots, token 5 over token 2, rows equal the band pass"
else
    fail "decode --plain --window 3" "exit $rc: $(head -c 600 "$tmp/out")"
fi
finish
