#!/usr/bin/env bash
# e2e_hostile.sh - text from outside never drives the terminal, lines are read
# in bounded pieces (issue #15, items 1, 3, 4, 11, 12): every printer of a
# lesson's text, a file name, a typed line, under every control character and
# escape sequence; NUL bytes named; a 100 MB line; the lesson checker's one
# run; the messages for a symlink loop, an empty MHAVIZ_LESSONS, a mistyped
# --preset.  (Its own file, so the file-fault matrix of e2e_files.sh stays
# that.)
. "$(dirname "$0")/e2e_lib.sh"

# raw FILE: the file holds a byte that drives a terminal (C0 but tab and
# newline, DEL, C1 as UTF-8, a bidi control, an 8-bit C1 byte)
raw() {
  LC_ALL=C grep -qaP '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]' "$1"
}
# clean NAME: ok when neither $tmp/out nor $tmp/err holds a raw control
clean() {
  if raw "$tmp/out" || raw "$tmp/err"; then
    fail "$1" "a raw control reached the terminal: $(cat "$tmp/err" "$tmp/out" | head -c 60 | od -An -c | tr -s ' \n' ' ')"
  else ok "$1"; fi
}

# ---- item 1: every control character and sequence, through every printer ----------
# 74 control characters (C0 but NUL and newline, which a line cannot hold, are
# tried as themselves; NUL in section 3), then 15 sequences.
mapfile -t hostile < <(python3 - <<'PY'
cs = [c for c in range(1, 0x20) if c != 10] + [0x7f] + list(range(0x80, 0xa0)) + \
     list(range(0x202a, 0x202f)) + list(range(0x2066, 0x206a))
seqs = ['\x1b[2J\x1b[H', '\x1b[31mred\x1b[0m', '\x1b]2;PWNED\x07', '\x1b]52;c;cHduZWQ=\x07',
        '\x1b]8;;http://x\x1b\\', '\x1bP+q544e\x1b\\', '\x1b_apc\x1b\\', '\x1b^pm\x1b\\',
        '\x1bXsos\x1b\\', '\x9b2J', '\x9d0;t\x9c', '\x90q\x9c', '\x1bc', '\r\x1b[K', '\b\b\bxyz']
for s in [chr(c) for c in cs] + seqs:
    print(s.encode('utf-8').hex())
PY
)
tried=0
lessons=$tmp/lessons
mkdir -p "$lessons"
: >"$tmp/stmts"
: >"$tmp/ans"
for hex in "${hostile[@]}"; do
  s=$(printf '%s' "$hex" | xxd -r -p)
  tried=$((tried + 1))
  f=$lessons/x$tried.lesson
  printf '@title T%s\n@summary s%s\n@page P%s\nhi %s {seq}\n' "$s" "$s" "$s" "$s" >"$f"
  capture "$BIN" lesson --check "$f"
  if [ "$hex" = 09 ]; then # a tab is text
    [ "$rc" = 0 ] || fail "a tab in a lesson is text" "exit $rc: $(head -c 200 "$tmp/err")"
  elif [ "$rc" != 2 ] || ! grep -q "x$tried.lesson:[0-9]*: control character" "$tmp/err"; then
    fail "lesson --check refuses $hex" "exit $rc: $(head -c 200 "$tmp/err")"
  fi
  raw "$tmp/err" && fail "lesson --check quotes $hex raw"
  capture "$BIN" lesson --frames "$f"
  { raw "$tmp/out" || raw "$tmp/err"; } && fail "lesson --frames prints $hex raw"
  printf 'a = torch.arange(4)%s\nb%s = a\n' "$s" "$s" >>"$tmp/stmts"
  printf '%s\n' "$s" >>"$tmp/ans"
done
capture "$BIN" play --plain --no-save <"$tmp/stmts"
{ raw "$tmp/out" || raw "$tmp/err"; } && fail "play --plain echoes a control raw"
capture "$BIN" play --json --no-save <"$tmp/stmts"
raw "$tmp/out" && fail "play --json prints a control raw"
capture "$BIN" quiz --plain --count "$tried" --seed 1 --no-save <"$tmp/ans"
check "quiz --plain read all $tried answers" test "$(grep -c '^Wrong\|^Right\|^Skipped' "$tmp/out")" = "$tried"
raw "$tmp/out" && fail "quiz --plain echoes a control raw"
[ "$e2e_fail" = 0 ] && ok "$tried controls and sequences: refused by lesson --check, never raw from --check, --frames, play --plain/--json, quiz --plain"

# a lesson that is fine but for its file name, listed from MHAVIZ_LESSONS
names=$tmp/names
mkdir -p "$names"
printf '@title Ok\n@page P\ntext\n' >"$names/01-$(printf '\033]2;PWNED\007').lesson"
printf '@title Ok\n@page P\ntext\n' >"$names/02-$(printf '\xc2\x9b2J').lesson"
MHAVIZ_LESSONS=$names capture "$BIN" lesson --list
check "lesson --list: file names escaped, both listed" test "$rc" = 0 -a "$(wc -l <"$tmp/out")" = 2
clean "lesson --list prints no raw control from a file name"
MHAVIZ_LESSONS=$names capture "$BIN" lesson --check
check "lesson --check of MHAVIZ_LESSONS: both ok" grep -qF '01-\x1b]2;PWNED\x07.lesson: ok' "$tmp/out"
clean "lesson --check prints no raw control from a file name"
capture "$BIN" lesson --check "$names/nope-$(printf '\033[2J').lesson"
check "a missing file's name is escaped in the error" grep -qF 'nope-\x1b[2J.lesson' "$tmp/err"
clean "the missing-file error holds no raw control"

# the issue's own lesson: refused where the escape is
printf '@title T\n@summary s\n@page P\nhi \033]2;PWNED\007 {seq}\n' >"$tmp/e.lesson"
capture "$BIN" lesson --check "$tmp/e.lesson"
check "the issue's e.lesson: exit 2, file:line: and the column" \
  grep -qF "$tmp/e.lesson:4: control character \\x1b at column 4" "$tmp/err"
# a UTF-8 BOM at the start is accepted
printf '\xef\xbb\xbf@title T\n@page P\ntext\n' >"$tmp/bom.lesson"
capture "$BIN" lesson --check "$tmp/bom.lesson"
check "a lesson starting with a UTF-8 BOM checks ok" test "$rc" = 0

# ---- item 11: every error of a file in one run; every file ---------------------------
cat >"$tmp/five.lesson" <<'L'
@title Five
@summary five errors
@page One
@stpe split
Text {strides nosuch} and {shape nothere}.
@page Two
@inspect 9,9,9,9
more {bogus}
L
capture "$BIN" lesson --check "$tmp/five.lesson" "$tmp/e.lesson"
check "lesson --check: five errors of one file and the next file's, in one run (exit 2)" \
  test "$rc" = 2 -a "$(grep -c "five.lesson:" "$tmp/err")" = 5 -a "$(grep -c "e.lesson:" "$tmp/err")" -ge 1

# ---- item 3: a NUL byte is named, by every line reader ----------------------------
printf 'a = torch.arange(24)\nb = a\0.view(2,12)\n' >"$tmp/nul"
capture "$BIN" play --json --no-save <"$tmp/nul"
check "play --json: the NUL line is an error naming the byte and its column" \
  grep -qF '{"line": 2, "ok": false, "error": "statement holds a NUL byte (0x00) at column 6", "column": 6}' "$tmp/out"
capture "$BIN" play --plain --no-save <"$tmp/nul"
check "play --plain: echoed with the NUL shown, the error names it" \
  grep -qF '>>> b = a\x00.view(2,12)' "$tmp/out"
printf 'a\0b\n' >"$tmp/nulans"
capture "$BIN" quiz --plain --count 1 --seed 1 --no-save <"$tmp/nulans"
check "quiz --plain: 'a\\0b' is not 'a': could not read, the NUL named" \
  grep -qF "could not read 'a\\x00b': answer holds a NUL byte (0x00) at column 2" "$tmp/out"

# ---- item 4: lines in bounded pieces --------------------------------------------------
python3 -c "import sys; sys.stdout.write('a = torch.arange(4)' + ' ' * (100 << 20) + '\nb = a.view(2, 2)\n')" >"$tmp/spaces"
python3 -c "import sys; sys.stdout.write('x' * (100 << 20) + '\na = torch.arange(4)\n')" >"$tmp/long"
capture "$BIN" play --json --no-save <"$tmp/spaces"
check "a statement then 100 MB of spaces: accepted, and the next line too" \
  test "$(grep -c '"ok": true' "$tmp/out")" = 2
capture "$BIN" play --json --no-save <"$tmp/long"
check "a 100 MB statement: too long, the next line still read" \
  grep -qF '"error": "statement too long (at most 1024 characters)"' "$tmp/out"
if [ -x /usr/bin/time ]; then
  for input in spaces long; do
    /usr/bin/time -f %M -o "$tmp/rss" "$BIN" play --json --no-save <"$tmp/$input" >/dev/null 2>&1
    kb=$(tail -1 "$tmp/rss")
    check "play --json, a 100 MB line ($input): RSS ${kb} KB, under 64 MB" test "$kb" -lt 65536
    /usr/bin/time -f %M -o "$tmp/rss" "$BIN" quiz --plain --count 1 --seed 1 --no-save <"$tmp/$input" >/dev/null 2>&1
    kb=$(tail -1 "$tmp/rss")
    check "quiz --plain, a 100 MB line ($input): RSS ${kb} KB, under 64 MB" test "$kb" -lt 65536
  done
fi
rm -f "$tmp/spaces" "$tmp/long"

# ---- item 12: what the lesson loader, MHAVIZ_LESSONS and --preset say ---------------
ln -s loop2.lesson "$tmp/loop1.lesson"
ln -s loop1.lesson "$tmp/loop2.lesson"
capture "$BIN" lesson --check "$tmp/loop1.lesson"
check "a symlink loop: exit 1, 'Too many levels of symbolic links'" \
  test "$rc" = 1 -a "$(grep -c 'Too many levels of symbolic links' "$tmp/err")" = 1
mkdir -p "$tmp/empty"
for dir in "$tmp/empty" /proc; do
  MHAVIZ_LESSONS=$dir capture "$BIN" lesson --list
  check "MHAVIZ_LESSONS=$dir: exit 1, 'no .lesson files in $dir'" \
    test "$rc" = 1 -a "$(grep -cF "mhaviz: no .lesson files in $dir" "$tmp/err")" = 1
done
MHAVIZ_LESSONS=$tmp/nonexistent capture "$BIN" lesson --list
check "MHAVIZ_LESSONS unreadable: exit 1 (an I/O error)" test "$rc" = 1
usage_error "unknown model (did you mean 'llama-3-8b'?)" kv --preset llama3-8b
usage_error "unknown model (did you mean 'llama-3-8b'?)" decode --plain --preset llama3-8b

# ---- a command after the flags: not an "unknown option" ------------------------------
usage_error "'frames' is not an option: the command comes first (mhaviz frames --seq 5)" \
  --seq 5 frames
usage_error "unknown option '--bogus' (try --help)" --bogus

finish
