#!/usr/bin/env bash
# export_same_values.sh - two builds' `mhaviz export` output holds the same
# numbers: for each config, both JSON documents parse (strictly: no NaN or
# Infinity), have the same structure and text everywhere except the numbers,
# and every number is the same float32 (the text may differ: "0.1" from
# the shortest-digits writer against "0.100000001" from %.9g).  Also checks
# that `frames --step 0` writes the same bytes (the matmul's result).
#
# usage: bash tests/export_same_values.sh OLD_BIN NEW_BIN
#   e.g. after `git archive BASE | tar -x -C /tmp/base && make -C /tmp/base`
set -eu
OLD=$1 NEW=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
configs=(
    ""
    "--seq 5 --d-model 12 --heads 6 --kv-heads 2 --seed 3 --causal"
    "--batch 2 --heads 4 --kv-heads 1"
    "--heads 1 --seq 1"
    "--seq 64 --d-model 64 --heads 8 --seed 7"
    "--seq 256 --d-model 256 --heads 8"
    "--batch 3 --seq 33 --d-model 48 --heads 6 --kv-heads 3 --causal --seed 99"
)
bad=0
for c in "${configs[@]}"; do
    # shellcheck disable=SC2086
    "$OLD" export $c >"$WORK/old.json"
    # shellcheck disable=SC2086
    "$NEW" export $c >"$WORK/new.json"
    if python3 - "$WORK/old.json" "$WORK/new.json" <<'PY'; then
import ctypes, json, struct, sys

libc = ctypes.CDLL(None)
libc.strtof.restype = ctypes.c_float
libc.strtof.argtypes = [ctypes.c_char_p, ctypes.c_void_p]

def as_f32(text):
    """The number as C reads it into a float (no double rounding on the way)."""
    return struct.pack("<f", libc.strtof(text.encode(), None))

def strict(name):
    raise ValueError("not JSON: " + name)

def load(path):
    with open(path) as f:
        return json.load(f, parse_constant=strict, parse_float=as_f32, parse_int=as_f32)

count = [0]

def same(a, b, where):
    if isinstance(a, bytes) and isinstance(b, bytes):
        count[0] += 1
        if a != b:
            sys.exit(f"{where}: {a!r} and {b!r} are different float32s")
    elif isinstance(a, (bool, str)) or isinstance(b, (bool, str)):
        if a != b:
            sys.exit(f"{where}: {a!r} != {b!r}")
    elif isinstance(a, dict) and isinstance(b, dict):
        if list(a) != list(b):
            sys.exit(f"{where}: keys differ")
        for k in a:
            same(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            sys.exit(f"{where}: {len(a)} != {len(b)} items")
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{where}[{i}]")
    elif a is None and b is None:
        pass
    else:
        sys.exit(f"{where}: {type(a).__name__} against {type(b).__name__}")

same(load(sys.argv[1]), load(sys.argv[2]), "$")
print(f"{count[0]} numbers", end="")
PY
        printf ', the same float32s: export %s\n' "${c:-(default)}"
    else
        echo "DIFFERENT: export $c"
        bad=1
    fi
done
for c in "--seq 64 --d-model 64 --heads 8" "--seq 256 --d-model 256 --heads 8 --causal"; do
    # shellcheck disable=SC2086
    if cmp -s <("$OLD" frames --step 0 $c) <("$NEW" frames --step 0 $c); then
        echo "same bytes: frames --step 0 $c"
    else
        echo "DIFFERENT: frames --step 0 $c"
        bad=1
    fi
done
exit $bad
