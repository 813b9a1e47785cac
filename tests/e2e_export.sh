#!/usr/bin/env bash
# e2e_export.sh - `mhaviz export` from the outside: valid JSON that follows
# the export schema of src/README.md, numbers that agree with an independent Python
# implementation (tests/ref_mha.py), and one-line exit-2 errors naming the
# flag for every kind of bad input.  Also --help and --version.
#
# $MHAVIZ_BIN is the binary to drive; $MODE is plain or asan.
# capture/usage_error/full_disk come from e2e_lib.sh.
. "$(dirname "$0")/e2e_lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)

# --- the JSON and its schema ------------------------------------------------
capture "$BIN" export
if [ "$rc" -eq 0 ] && [ ! -s "$tmp/err" ]; then ok "export: exit 0, nothing on stderr"; else
    fail "export" "exit $rc, stderr: $(head -c 200 "$tmp/err")"; fi
if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/out" 2>"$tmp/pyerr"; then ok "export: valid JSON"; else
    fail "export: valid JSON" "$(tail -1 "$tmp/pyerr")"; fi

schema_errs=$(python3 - "$tmp/out" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
errs = []
if set(doc) != {"config", "tensors", "steps", "program", "program_bugs"}:
    errs.append("top-level keys %s" % sorted(doc))
prog = doc.get("program", [])
if not prog or not all(isinstance(l, str) and len(l) <= 45 for l in prog) or not prog[-1].startswith("out = "):
    errs.append("program: lines of at most 45 characters, the last making y: %r" % prog)
bugs = doc.get("program_bugs", [])
if [(b.get("view"), b.get("tensor")) for b in bugs] != [("wrong", "Q_wrong"), ("noscale", "attn_noscale")] \
        or not all(1 <= b.get("line", 0) <= len(prog) for b in bugs):
    errs.append("program_bugs: %r" % bugs)
cfg = doc.get("config", {})
for k in ("batch", "seq", "d_model", "heads", "kv_heads", "d_head", "causal", "seed", "rope",
          "rope_theta"):
    if k not in cfg:
        errs.append("config.%s missing" % k)
want = {"batch": 1, "seq": 4, "d_model": 8, "heads": 2, "kv_heads": 2, "d_head": 4,
        "causal": False, "seed": 1, "rope": None, "rope_theta": None}
if "Q_rope" in doc.get("tensors", {}) or "K_rope" in doc.get("tensors", {}):
    errs.append("RoPE is off but Q_rope or K_rope is exported")
if cfg != want:
    errs.append("default config %r, README.md says %r" % (cfg, want))
names = ("x W_Q W_K W_V W_O Q K V Q_split K_split V_split Q_heads K_heads V_heads "
         "scores attn head_out merged merged_contig concat out attn_single Q_wrong").split()
tens = doc.get("tensors", {})
for n in names:
    t = tens.get(n)
    if t is None:
        errs.append("tensor %s missing" % n)
        continue
    for k, typ in (("shape", list), ("strides", list), ("offset", int), ("storage", str),
                   ("contiguous", bool), ("data", list)):
        if not isinstance(t.get(k), typ):
            errs.append("%s.%s is not a %s" % (n, k, typ.__name__))
    if isinstance(t.get("shape"), list) and isinstance(t.get("data"), list):
        numel = 1
        for d in t["shape"]:
            numel *= d
        if len(t["data"]) != numel:
            errs.append("%s: %d values for shape %s" % (n, len(t["data"]), t["shape"]))
        if len(t["strides"]) != len(t["shape"]):
            errs.append("%s: %d strides for %d dims" % (n, len(t["strides"]), len(t["shape"])))
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in t["data"]):
            errs.append("%s: a value that is not a number" % n)
# a view carries the storage of the tensor it views; the copy has its own
same = [("Q_split", "Q"), ("Q_heads", "Q"), ("K_split", "K"), ("K_heads", "K"),
        ("V_split", "V"), ("V_heads", "V"), ("merged", "head_out"),
        ("concat", "merged_contig"), ("Q_wrong", "Q")]
for a, b in same:
    if a in tens and b in tens and tens[a]["storage"] != tens[b]["storage"]:
        errs.append("%s (a view of %s) has storage %s, %s has %s"
                    % (a, b, tens[a]["storage"], b, tens[b]["storage"]))
if "merged" in tens and "merged_contig" in tens and tens["merged"]["storage"] == tens["merged_contig"]["storage"]:
    errs.append("merged_contig shares merged's storage: the copy did not copy")
if tens.get("Q_heads", {}).get("contiguous") is not False:
    errs.append("Q_heads should be non-contiguous")
steps = doc.get("steps", [])
if len(steps) != 11:
    errs.append("%d steps, expected 11" % len(steps))
for i, s in enumerate(steps):
    for k, typ in (("name", str), ("code", str), ("inputs", list), ("output", str),
                   ("is_view", bool), ("bytes_copied", int)):
        if not isinstance(s.get(k), typ):
            errs.append("steps[%d].%s is not a %s" % (i, k, typ.__name__))
    if s.get("output") not in tens:
        errs.append("steps[%d].output %r is not a tensor" % (i, s.get("output")))
    for n in s.get("inputs", []):
        if n not in tens:
            errs.append("steps[%d] input %r is not a tensor" % (i, n))
print("\n".join(errs))
EOF
)
if [ -z "$schema_errs" ]; then ok "export: follows the schema"; else fail "export: follows the schema" "${schema_errs//$'\n'/; }"; fi

# --- numbers against the independent reference -------------------------------
configs=(
    ""
    "--seq 5 --d-model 12 --heads 6 --kv-heads 2 --seed 3 --causal"
    "--seq 6 --d-model 16 --heads 4 --kv-heads 1 --seed 7"
    "--seq 3 --d-model 8 --heads 8 --kv-heads 1 --seed 0 --causal"
    "--batch 2 --seq 4 --d-model 8 --heads 4 --kv-heads 2 --seed 11 --causal"
    "--batch 2 --seq 7 --d-model 24 --heads 3 --seed 4294967295"
    "--seq 1 --d-model 1 --heads 1"
    "--batch 3 --seq 1 --d-model 8 --heads 4 --kv-heads 2 --seed 2 --causal"
    "--seq 9 --d-model 20 --heads 1 --seed 5 --causal"
    # RoPE, both layouts: MHA, GQA, MQA, causal or not, batch > 1, another theta
    "--rope half"
    "--rope interleaved"
    "--rope half --seq 5 --d-model 12 --heads 3 --kv-heads 1 --seed 3 --causal"
    "--rope interleaved --seq 5 --d-model 12 --heads 3 --kv-heads 1 --seed 3 --causal"
    "--rope half --batch 2 --seq 6 --d-model 16 --heads 4 --kv-heads 2 --seed 11 --causal"
    "--rope interleaved --batch 2 --seq 6 --d-model 16 --heads 4 --kv-heads 2 --seed 11"
    "--rope half --batch 3 --seq 9 --d-model 24 --heads 6 --kv-heads 3 --rope-theta 500000"
    "--rope interleaved --seq 12 --d-model 32 --heads 4 --kv-heads 1 --rope-theta 1000000 --causal"
    "--rope half --seq 1 --d-model 2 --heads 1"
    "--seq 12 --d-model 64 --heads 8 --kv-heads 2 --seed 9"
)
torch_py= # Debian's python3-torch (PyTorch 1.13) lives in /usr/bin/python3
for py in python3 /usr/bin/python3; do
    if [ -z "$torch_py" ] && "$py" -c 'import torch' 2>/dev/null; then torch_py=$py; fi
done
[ -n "$torch_py" ] || echo "# no python with torch: RoPE checked against the plain reference only"
# every export first, then ref_mha.py on all of them in one python3, and the
# RoPE ones again in one $torch_py (py_batch: torch imported once)
i=0
for c in "${configs[@]}"; do
    i=$((i + 1))
    # shellcheck disable=SC2086
    capture "$BIN" export $c
    if [ "$rc" -ne 0 ]; then
        fail "export $c agrees with ref_mha.py" "exit $rc: $(head -c 200 "$tmp/err")"
        continue
    fi
    cp "$tmp/out" "$tmp/export$i.json"
    py_queue "$tmp/ref$i" "$tmp/export$i.json" $c
done
py_batch python3 "$HERE/ref_mha.py"
i=0
for c in "${configs[@]}"; do
    i=$((i + 1))
    # RoPE again against PyTorch's own rotation, where an interpreter has torch
    case "$c" in *--rope*) [ -n "$torch_py" ] && [ -f "$tmp/export$i.json" ] || continue ;; *) continue ;; esac
    py_queue "$tmp/tref$i" "$tmp/export$i.json" $c
done
[ -z "$torch_py" ] || py_batch "$torch_py" "$HERE/ref_mha.py"
i=0
for c in "${configs[@]}"; do
    i=$((i + 1))
    [ -f "$tmp/export$i.json" ] || continue
    if py_passed "$tmp/ref$i"; then ok "export $c agrees with ref_mha.py"; else
        fail "export $c agrees with ref_mha.py" "it disagrees:"; sed 's/^/# /' "$tmp/ref$i"; fi
    [ -f "$tmp/tref$i.rc" ] || continue
    if py_passed "$tmp/tref$i" && grep -q "PyTorch" "$tmp/tref$i"; then
        ok "export $c agrees with PyTorch (ref_mha.py under $torch_py)"
    else
        fail "export $c agrees with PyTorch" "it disagrees:"; sed 's/^/# /' "$tmp/tref$i"
    fi
done

# same seed -> the same bytes; another seed -> other numbers
capture "$BIN" export --seed 9 --heads 4; cp "$tmp/out" "$tmp/a"
capture "$BIN" export --seed 9 --heads 4; cp "$tmp/out" "$tmp/b"
capture "$BIN" export --seed 10 --heads 4; cp "$tmp/out" "$tmp/c"
check "export --seed 9 twice: the same bytes" cmp -s "$tmp/a" "$tmp/b"
if ! cmp -s "$tmp/a" "$tmp/c"; then ok "export --seed 9 and --seed 10: other numbers"; else
    fail "export --seed 9 and --seed 10: other numbers" "the same output"; fi
# --flag=value is the same as --flag value
capture "$BIN" export --seed=9 --heads=4
check "export --seed=9 --heads=4 is --seed 9 --heads 4" cmp -s "$tmp/a" "$tmp/out"

# --- bad input: exit 2, empty stdout, ONE line on stderr naming the flag -----
# (usage_error NEEDLE ARGS...: the stderr line must contain NEEDLE)
for flag in --batch --seq --d-model --heads --kv-heads --seed; do
    usage_error "$flag" export "$flag" abc            # non-numeric
    usage_error "$flag" export "$flag" 3x             # trailing junk
    usage_error "$flag" export "$flag" 1.5            # not whole
    usage_error "$flag" export "$flag" ""             # empty
    usage_error "$flag" export "$flag" -1             # negative
    usage_error "$flag" export "$flag" 99999999999999999999999  # huge, overflows long
    usage_error "$flag" export "$flag"                # missing value
    usage_error "$flag" export "$flag=x"
done
for flag in --batch --seq --d-model --heads --kv-heads; do
    usage_error "$flag" export "$flag" 0              # zero
done
usage_error "--batch" export --batch 65
usage_error "64" export --batch 65                    # the limit is in the message
usage_error "--seq" export --seq 1025
usage_error "1024" export --seq 1025
usage_error "--d-model" export --d-model 1025
usage_error "--d-model" export --d-model 2000000
usage_error "--seed" export --seed 4294967296
usage_error "--heads 3: d_model 8 is not divisible by 3 (try 1, 2, 4 or 8)" export --heads 3
usage_error "--heads 5" export --d-model 12 --heads 5
usage_error "--heads 16" export --heads 16            # more heads than d_model
usage_error "--kv-heads 3: heads 4 is not divisible by 3 (try 1, 2 or 4)" export --heads 4 --kv-heads 3
usage_error "--kv-heads 4" export --heads 2 --kv-heads 4
usage_error "--kv-heads" export --kv-heads 3          # heads stays 2
usage_error "--causal" export --causal=1              # takes no value
usage_error "--rope 'neox': unknown layout (use half or interleaved)" export --rope neox
usage_error "--rope" export --rope
usage_error "--rope half: d_head 3 (--d-model 6 / --heads 2) is odd" export --rope half --d-model 6
usage_error "--rope interleaved: d_head 1" export --rope interleaved --heads 8
for v in 0 -1 abc 1e4 1. "" +5; do usage_error "--rope-theta" export --rope half --rope-theta "$v"; done
usage_error "--rope-theta" export --rope-theta 10000000000000
usage_error "--bogus" export --bogus
usage_error "--hedas" export --hedas 2
usage_error "-x" export -x
usage_error "stray" export stray
usage_error "frobnicate" frobnicate
usage_error "--batch" export --batch 64 --seq 1024 --d-model 1024 # over the memory limit

# --- a full disk is a runtime failure: exit 1, one line ---------------------------
full_disk export

# --- help and version ------------------------------------------------------------
capture "$BIN" --help
if [ "$rc" -eq 0 ] && grep -q export "$tmp/out" && grep -q -- --kv-heads "$tmp/out"; then ok "mhaviz --help"; else
    fail "mhaviz --help" "exit $rc"; fi
capture "$BIN" export --help
if [ "$rc" -eq 0 ] && grep -q 'usage: mhaviz export' "$tmp/out" && grep -q -- --causal "$tmp/out"; then ok "mhaviz export --help"; else
    fail "mhaviz export --help" "exit $rc"; fi
capture "$BIN" --version
if [ "$rc" -eq 0 ] && grep -Eq '^mhaviz [0-9]+\.[0-9]+' "$tmp/out"; then ok "mhaviz --version"; else
    fail "mhaviz --version" "exit $rc, '$(cat "$tmp/out")'"; fi

# --- realistic numbers at every size (issue 17): at --seq 64 --d-model 256 ----------
# --heads 16 the weights are scaled by 1/sqrt(D), so the softmax rows are
# distributions: the median over all rows of a row's largest weight is <= 0.5
# (with plain tenths it was 0.9999: one-hot attention).
capture "$BIN" export --seq 64 --d-model 256 --heads 16
med=$(python3 -c '
import json, statistics, sys
d = json.load(open(sys.argv[1]))
a, S = d["tensors"]["attn"]["data"], d["config"]["seq"]
print("%.4f" % statistics.median(max(a[i:i + S]) for i in range(0, len(a), S)))' "$tmp/out" 2>&1)
if [ "$rc" -eq 0 ] && python3 -c 'import sys; sys.exit(not float(sys.argv[1]) <= 0.5)' "$med" 2>/dev/null; then
    ok "export --seq 64 --d-model 256 --heads 16: median row max $med <= 0.5"; else
    fail "export --seq 64 --d-model 256 --heads 16: softmax rows are distributions" "exit $rc, median row max $med"; fi

# --- the largest allowed sizes run (and do not hang) in plain mode ----------------
if [ "${MODE:-plain}" = plain ]; then
    capture "$BIN" export --seq 256 --d-model 256 --heads 8
    if [ "$rc" -eq 0 ] && python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/out"; then
        ok "export --seq 256 --d-model 256: the largest sizes run"; else
        fail "export --seq 256 --d-model 256" "exit $rc"; fi
fi


# issue 16: the statements each step says it ran ("ran"), run by PyTorch on
# the export's x and weights, give the run's tensors; so does the
# walkthrough's program ("program": y is out) and each of its bugs
if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
    for c in "" "--causal --seq 6 --d-model 16 --heads 4 --kv-heads 2" "--causal --window 3 --seq 8" \
        "--rope half --seq 6 --d-model 16 --heads 4 --kv-heads 2" "--rope interleaved --kv-heads 1" \
        "--batch 2 --seq 5 --d-model 24 --heads 4 --kv-heads 2" \
        "--batch 2 --seq 7 --d-model 16 --heads 4 --kv-heads 2 --causal --window 2 --rope half"; do
        # shellcheck disable=SC2086
        if out=$(/usr/bin/python3 "$HERE/ref_mha_ran.py" "$BIN" $c 2>&1); then
            ok "export $c: the statements it ran and its program, in PyTorch, give its tensors"
        else
            fail "export $c: its statements in PyTorch" "$(printf '%s' "$out" | tail -4)"
        fi
    done
else
    echo "# skip: /usr/bin/python3 has no torch to run the export's statements"
fi

finish
