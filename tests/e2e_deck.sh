#!/usr/bin/env bash
# e2e_deck.sh - the HTML decks in a real browser: `frames --format html` and
# `lesson --frames N --format html` opened from file:// in headless Chromium
# (Debian's chromium, chromium-driver, python3-selenium; make deps-test and
# .ci/run install them), driven key by key by tests/deck_browser.py against
# the text frames the same commands print.  Screenshots of steps 2 and 8 go
# to .build/deck-step2.png and .build/deck-step8.png.
. "$(dirname "$0")/e2e_lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
SHOTS=${DECK_SHOTS:-$HERE/../.build}
mkdir -p "$SHOTS"

# Debian's selenium is /usr/bin/python3's, whatever python3 comes first on PATH
py=python3
"$py" -c 'import selenium' 2>/dev/null || py=/usr/bin/python3
chromium=$(command -v chromium || command -v chromium-browser)
driver=$(command -v chromedriver || ls /usr/lib/chromium/chromedriver 2>/dev/null)
check "chromium, chromedriver and python3-selenium are installed (make deps-test)" \
  test -n "$chromium" -a -n "$driver" -a -n "$("$py" -c 'import selenium; print(1)' 2>/dev/null)"

d=$tmp/deck
mkdir -p "$d"
"$BIN" frames --format html > "$d/walk.html"
check "frames --format html exits 0" test $? = 0
for s in $(seq 0 10); do
  "$BIN" frames --step "$s" --color=never | tail -n +2 > "$d/walk-$s.txt"
done
# step 8's animation: frame k of 22 is phase k/22, as frames.c draws it
for k in $(seq 0 21); do
  "$BIN" frames --step 8 --color=never --anim "$(python3 -c "print(repr($k / 22))")" | tail -n +2
  [ "$k" = 21 ] || printf '\f'
done > "$d/walk-8-anim.txt"

"$BIN" lesson --frames 2 --format html > "$d/lesson.html"
check "lesson --frames 2 --format html exits 0" test $? = 0
pages=$("$BIN" lesson --frames 2 | grep -c '^--- ')
for p in $(seq 1 "$pages"); do
  "$BIN" lesson --frames 2 --page "$p" | tail -n +2 > "$d/lesson-$p.txt"
done

# a lesson file is user input: markup in its title and text stays text
title="<script>alert(1)</script> & \"quotes\" 'x' </title>"
cat > "$tmp/hostile.lesson" <<LESSON
@title $title
@page A <b>page</b> & <img src=x onerror=alert(2)>
@step split
An <img src=x onerror=alert(3)> & "&amp;" stays text: {strides Q_split}.
LESSON
"$BIN" lesson --frames "$tmp/hostile.lesson" --format html > "$d/hostile.html"
"$BIN" lesson --frames "$tmp/hostile.lesson" | tail -n +2 > "$d/hostile-1.txt"
check "  ... its deck holds no <script> or <img> from the file" \
  test "$(grep -c '<script>alert\|<img\|<b>' "$d/hostile.html")" = 0

# the deck's errors: as every command's
usage_error "--format 'pdf': expected text or html" lesson --frames 2 --format pdf
full_disk frames --format html
full_disk lesson --frames 2 --format html

if [ -n "$chromium" ] && [ -n "$driver" ]; then
  start=$(date +%s)
  mkdir -p "$tmp/home" # Chromium's caches and crash reports: ours, not the user's
  HOME=$tmp/home timeout 120 "$py" "$HERE/deck_browser.py" --chromium "$chromium" --driver "$driver" \
    --dir "$d" --shots "$SHOTS" --title "$title" > "$tmp/browser" 2>&1
  rc=$?
  while IFS= read -r line; do
    case "$line" in
      "ok - "*) ok "${line#ok - }" ;;
      "not ok - "*) line=${line#not ok - }; fail "${line%%: *}" "${line#*: }" ;;
      *) echo "$line" ;;
    esac
  done < "$tmp/browser"
  check "the browser script ends well (exit $rc) within 120 s, in $(($(date +%s) - start)) s" test "$rc" = 0
fi
finish
