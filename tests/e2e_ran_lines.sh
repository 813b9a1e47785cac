#!/usr/bin/env bash
# e2e_ran_lines.sh - the code a step shows is the code it ran (issue 16):
# for MHA, GQA, MQA, causal, rope and window runs (window: export only,
# frames has no --window), export's "code" of every
# step is its "ran" statements joined with "; ", and the walkthrough's ▶
# line under the program shows exactly those statements: wrapped at the
# width on a tall frame (120x40), at 80x24 in its one row all of them or,
# when they do not fit, the one statement that made the step's tensor.  Each statement is checked against the
# program's own list: mha_prog.c is the one place they are written.
#
# $MHAVIZ_BIN is the binary to drive; $MODE is plain or asan.
. "$(dirname "$0")/e2e_lib.sh"

configs=("" "--heads 4 --kv-heads 2" "--heads 4 --kv-heads 1" "--causal"
         "--rope half --heads 4 --kv-heads 2" "--rope interleaved --causal --seq 8"
         "--causal --window 2 --heads 4 --kv-heads 2")
for cfg in "${configs[@]}"; do
    # shellcheck disable=SC2086
    if ! "$BIN" export $cfg >"$tmp/run.json" 2>"$tmp/err"; then
        fail "export $cfg" "$(head -c 200 "$tmp/err")"
        continue
    fi
    bad=$(python3 - "$tmp/run.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for s in doc["steps"]:
    want = "; ".join(s["ran"]) if s["ran"] else "x"
    if s["code"] != want:
        print("%s: code %r, ran %r" % (s["name"], s["code"], s["ran"]))
PY
)
    if [ -z "$bad" ]; then ok "export $cfg: every step's code is what it ran"; else
        fail "export $cfg: code is what ran" "$(echo "$bad" | head -3)"; fi
    case "$cfg" in *--window*) continue ;; esac # frames draws no window (export only)
    n=$(jq '.steps | length' "$tmp/run.json")
    for ((k = 0; k < n; k++)); do
        name=$(jq -r ".steps[$k].name" "$tmp/run.json")
        case "$name" in # its --step key (frames takes numbers 0-10 only, rope makes 12)
        "make contiguous") key=contiguous ;;
        *) key=${name%% *} ;;
        esac
        for size in "80 24" "120 40"; do
            set -- $size
            # shellcheck disable=SC2086
            "$BIN" frames --step "$key" --cols "$1" --rows "$2" --color=never $cfg >"$tmp/f" 2>"$tmp/err" ||
                { fail "frames $cfg step $k $1x$2" "$(head -c 200 "$tmp/err")"; continue; }
            bad=$(python3 - "$tmp/run.json" "$k" "$tmp/f" "$2" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
s = doc["steps"][int(sys.argv[2])]
want = "; ".join(s["ran"]) if s["ran"] else "x"
rows = open(sys.argv[3], encoding="utf-8").read().split("\n")[1:]  # the header line out
tall = int(sys.argv[4]) >= 30
code = next((r for r in rows[7:] if r.startswith("\u25b6 ") and not r[1:4].strip().isdigit()),
            None)  # the one under the program, not the program's lit line
if code is None:
    print("no code line")
    sys.exit()
i = rows.index(code)
text = code[2:].split("   ")[0].rstrip()  # what it ran, the memory note after 3 spaces out
norm = lambda t: " ".join(t.split())
for r in rows[i + 1:i + 3]:  # continuation rows, indented under the code
    if norm(text).startswith(norm(want)) or not r.startswith("  ") or r.startswith("   "):
        break
    text += " " + r.split("   ")[0].strip()
ok = norm(text) == norm(want) or (not tall and text in s["ran"])  # 80x24: one row
if not ok:
    print("shows %r, ran %r" % (norm(text)[:160], want[:160]))
PY
)
            if [ -z "$bad" ]; then ok "frames $cfg $1x$2 step $k ($key): the code line is what ran"; else
                fail "frames $cfg $1x$2 step $k ($key)" "$bad"; fi
        done
    done
done
finish
