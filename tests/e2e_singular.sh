#!/usr/bin/env bash
# e2e_singular.sh - a count of one reads "1 float", "1 token", "1 head", never
# "1 floats": the text every command prints at size-1 configurations (frames,
# large print and compare among them; decode, paged and windowed; flash; kv;
# the lesson checker's count), grepped for a plural after a lone 1.
. "$(dirname "$0")/e2e_lib.sh"
export NO_COLOR=1

# a lone 1 (not 21, not 0.1, not 1,024) then a plural noun
plural_after_one='(^|[^0-9.,])1 (floats|tokens|heads|bytes|rows|cols|blocks|pages|slots|layers|exercises|query heads|kv heads|prompt tokens|cached tokens)\b'

# singular NAME ARGS...: `mhaviz ARGS` exits 0 and no line has "1 <plural>"
singular() {
  local name=$1 bad
  shift
  capture "$BIN" "$@"
  bad=$(grep -hE "$plural_after_one" "$tmp/out" "$tmp/err" | head -3)
  if [ "$rc" = 0 ] && [ -z "$bad" ] && [ -s "$tmp/out" ]; then
    ok "$name: no '1 <plural>'"
  else
    fail "$name ($*)" "exit $rc; $bad"
  fi
}

singular "frames, one token, one head, d_model 2" frames --seq 1 --heads 1 --d-model 2
singular "frames, d_model 1" frames --d-model 1 --heads 1
singular "frames --large, one token" frames --large --seq 1 --heads 1 --d-model 2 --cols 100 --rows 30
singular "frames --compare at size 1" frames --seq 1 --heads 1 --d-model 2 --compare "--batch 2"
singular "frames at 200 columns, one head" frames --heads 1 --seq 1 --cols 200 --rows 60
singular "decode, a 1-token prompt" decode --plain --seq 2 --prompt 1
singular "decode, one head" decode --plain --seq 2 --heads 1 --d-model 2
singular "decode --window 1" decode --plain --window 1 --seq 3
singular "decode --paged, blocks of 1 token" decode --plain --paged --batch 2 --block-size 1 --seq 2 \
  --shared-prefix 1 --prompt 1
singular "flash, one token, one head" flash --plain --seq 1 --heads 1 --block-q 1 --block-k 1
singular "kv, one of everything" kv --layers 1 --heads 1 --kv-heads 1 --d-head 1 --context 1
singular "kv --paged, blocks of 1 token" kv --layers 1 --heads 1 --kv-heads 1 --d-head 1 \
  --context 2 --paged --block-size 1 --lengths 1,1 --shared-prefix 1

# the pattern itself can fail: the old texts
for old in "memory S10: 1 floats, 4 bytes" "context 1 tokens, batch 1" "(1 heads"; do
  check "the check catches '$old'" grep -qE "$plural_after_one" <<<"$old"
done
check "the check leaves '21 floats', '0.1 tokens', '1,024 bytes'" \
  bash -c '! grep -qE "$1" <<<"21 floats 0.1 tokens 1,024 bytes"' _ "$plural_after_one"

finish
