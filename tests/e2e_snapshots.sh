#!/usr/bin/env bash
# Snapshot tests: the program's text output for a fixed set of configurations,
# kept in tests/snapshots/.  A change of any byte is a failure; a change made on
# purpose is recorded with `make snapshots` and committed with a message that says why.
#
#   MHAVIZ_BIN=BIN bash tests/e2e_snapshots.sh          compare (make test)
#   MHAVIZ_BIN=BIN bash tests/e2e_snapshots.sh update   rewrite tests/snapshots/ (make snapshots)
. "$(dirname "$0")/e2e_lib.sh"
action=${1:-check} # $MODE (plain or asan) is the build, as in every e2e script
here=$(cd "$(dirname "$0")" && pwd)
dir=$here/snapshots
export NO_COLOR=1 LANG=C.UTF-8 LC_ALL=C.UTF-8
unset MHAVIZ_LESSONS

# name | command line (after the binary)
snaps=(
  "frames-default|frames --step all --color=never"
  "frames-gqa|frames --step all --heads 4 --kv-heads 2 --color=never"
  "frames-mqa|frames --step all --heads 4 --kv-heads 1 --color=never"
  "frames-causal|frames --step all --causal --seq 5 --color=never"
  "frames-batch2|frames --step all --batch 2 --color=never"
  "frames-heads1|frames --step all --heads 1 --color=never"
  "frames-seq1|frames --step all --seq 1 --color=never"
  "frames-120x40|frames --step all --cols 120 --rows 40 --color=never"
  "frames-200x60|frames --step all --cols 200 --rows 60 --heads 4 --color=never"
  "frames-single|frames --step softmax --single --color=never"
  "frames-wrong|frames --view wrong --color=never"
  "frames-noscale|frames --view noscale --color=never"
  "frames-inspect|frames --step heads --inspect 0,1,1,2 --color=never"
  "frames-ascii|frames --step all --ascii --color=never"
  "frames-anim|frames --step contiguous --anim 0.5 --color=never"
  "frames-large-100x30|frames --step all --large --cols 100 --rows 30 --color=never"
  "frames-rope-half|frames --step rope --rope half --color=never"
  "frames-rope-large|frames --step rope --rope interleaved --large --cols 100 --rows 30 --color=never"
  "export-default|export"
  "export-gqa-causal|export --seq 5 --d-model 12 --heads 6 --kv-heads 2 --seed 3 --causal"
  "export-mqa-batch2|export --batch 2 --heads 4 --kv-heads 1"
  "export-heads1-seq1|export --heads 1 --seq 1"
)
for n in 1 2 3 4 5 6 7; do snaps+=("lesson-$n|lesson --frames $n"); done
for s in 1 2 3; do snaps+=("quiz-seed$s|quiz --plain --no-save --count 12 --seed $s"); done

# the answers fed to every quiz transcript: letters, numbers, shapes, a skip
answers=$'a\n4\n(1, 2, 4, 4)\nb\n\n32\nyes\nc\n1\n[2 8 16 64]\nno\nd\n'

mkdir -p "$tmp/got"
for s in "${snaps[@]}"; do
  name=${s%%|*} args=${s#*|}
  # shellcheck disable=SC2086
  printf '%s' "$answers" | "$BIN" $args > "$tmp/got/$name.txt" 2>&1
  echo "exit $?" >> "$tmp/got/$name.txt"
done

if [ "$action" = update ]; then
  rm -f "$dir"/*.txt && mkdir -p "$dir" && cp "$tmp"/got/*.txt "$dir"/
  echo "snapshots: wrote ${#snaps[@]} files to tests/snapshots/"
  exit 0
fi
for s in "${snaps[@]}"; do
  name=${s%%|*}
  if cmp -s "$dir/$name.txt" "$tmp/got/$name.txt"; then
    ok "snapshot $name unchanged"
  else
    fail "snapshot $name" "differs (mhaviz ${s#*|}):"
    diff -u "$dir/$name.txt" "$tmp/got/$name.txt" | head -20 | sed 's/^/# /'
  fi
done
finish
