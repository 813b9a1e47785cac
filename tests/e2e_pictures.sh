#!/usr/bin/env bash
# e2e_pictures.sh - the README's pictures are what the program draws now:
# each assets/walk-stepN.svg byte for byte `frames --step N --format svg`
# (make pictures writes them), steps 2 and 8 among them, and the README
# opens with them, right after its two commands.
. "$(dirname "$0")/e2e_lib.sh"
ROOT=$(cd "$(dirname "$0")/.." && pwd)

pics=$(cd "$ROOT" && ls assets/walk-step*.svg 2>/dev/null)
check "assets/ holds step 2's and step 8's pictures" \
  test -n "$(grep -x assets/walk-step2.svg <<<"$pics")" -a -n "$(grep -x assets/walk-step8.svg <<<"$pics")"
for pic in $pics; do
  n=${pic#assets/walk-step}
  n=${n%.svg}
  "$BIN" frames --step "$n" --format svg > "$tmp/now.svg"
  if cmp -s "$tmp/now.svg" "$ROOT/$pic"; then
    ok "$pic is what frames --step $n --format svg draws now"
  else
    fail "$pic is what frames --step $n --format svg draws now" \
      "it differs ($(diff "$ROOT/$pic" "$tmp/now.svg" | grep -c '^[<>]') lines): run make pictures and commit them"
  fi
done

# the README: its two commands, then the pictures, before any other text
top=$(sed -n '/^```sh$/,$p' "$ROOT/README.md" | sed -n '/^```$/,$p' | sed '1d' | grep -v '^$' | head -2)
check "the README opens with the pictures, right after its two commands" \
  test "$(grep -o 'assets/walk-step[0-9]*\.svg' <<<"$top" | tr '\n' ' ')" = "assets/walk-step2.svg assets/walk-step8.svg "
finish
