#!/usr/bin/env bash
# e2e_export_numbers.sh - the numbers `mhaviz export` writes: strict JSON
# (no NaN, Infinity or null reaches the output), and each number the shortest
# text that reads back (strtof) to its float32: the same float, and neither
# neighbour with one digit less reads back to it.
. "$(dirname "$0")/e2e_lib.sh"

cat >"$tmp/shortest_check.py" <<'PY'
import ctypes, decimal, json, re, struct, sys

libc = ctypes.CDLL(None)
libc.strtof.restype = ctypes.c_float
libc.strtof.argtypes = [ctypes.c_char_p, ctypes.c_void_p]

def f32(text):
    return struct.pack("<f", libc.strtof(text.encode(), None))

def bad_constant(name):
    sys.exit(f"{name} in the JSON")

texts = []
def keep(text):
    texts.append(text)
    return text

doc = json.load(open(sys.argv[1]), parse_constant=bad_constant, parse_float=keep)
raw = open(sys.argv[1]).read()
raw = raw[raw.index('"tensors"'):]  # config's "rope": null (RoPE off) is the contract
if re.search(r"\bnull\b", raw):
    sys.exit("null in the JSON")
data = [t for tensor in doc["tensors"].values() for t in tensor["data"]]
for t in data:
    t = str(t)
    d = decimal.Decimal(t)
    if d == 0:
        continue
    sign, digits, exp = d.normalize().as_tuple()
    if len(digits) < 2:
        continue
    n = int("".join(map(str, digits)))
    for shorter in (n // 10, n // 10 + 1):
        s = ("-" if sign else "") + f"{shorter}e{exp + 1}"
        if f32(s) == f32(t):
            sys.exit(f"{t} is not the shortest: {s} reads back to the same float")
print(len(data))
PY

configs=(
    ""
    "--causal --seq 9 --d-model 12 --heads 3"
    "--batch 2 --seq 7 --d-model 16 --heads 4 --kv-heads 2 --seed 12345"
    "--seq 40 --d-model 64 --heads 8 --causal --seed 4294967295"
    "--seq 40 --d-model 64 --heads 8 --kv-heads 2 --rope half --seed 3"
)
for c in "${configs[@]}"; do
    # shellcheck disable=SC2086
    "$BIN" export $c >"$tmp/out.json" 2>"$tmp/err"
    rc=$?
    check "export ${c:-(default)} exits 0" test "$rc" = 0
    if why=$(python3 "$tmp/shortest_check.py" "$tmp/out.json" 2>&1); then
        ok "export ${c:-(default)}: $why numbers, strict JSON, each the shortest"
    else
        fail "export ${c:-(default)}" "$why"
    fi
done
finish
