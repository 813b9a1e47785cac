#!/usr/bin/env bash
# e2e_formats.sh - `mhaviz frames --format`: SVG is valid XML with one text run
# per span of same-styled cells and the frame's text; HTML is a deck that
# parses and holds every frame (the browser drives it in e2e_deck.sh); cast is an asciicast v2 file whose last frame of each step is
# the text frame; ansi carries colour; bad values are usage errors.
. "$(dirname "$0")/e2e_lib.sh"

"$BIN" frames --step 8 --color=never > "$tmp/text" 2>&1
"$BIN" frames --step 8 --format svg > "$tmp/svg" 2> "$tmp/err"
check "svg exits 0 and says nothing on stderr" test $? = 0 -a ! -s "$tmp/err"
python3 - "$tmp/svg" "$tmp/text" <<'PY' && ok "svg: valid XML, one <text> per row, each row's text" || fail "svg content"
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
rows = root.findall(ns + "text")
text = open(sys.argv[2], encoding="utf-8").read().split("\n")[1:25]
assert len(rows) == 24, len(rows)
for got, want in zip(rows, text):
    line = "".join(t.text or "" for t in got.findall(ns + "tspan"))
    assert line.rstrip() == want.rstrip(), (line, want)
    styles = [(t.get("fill"), t.get("font-weight"), t.get("text-decoration")) for t in got.findall(ns + "tspan")]
    # one run per span: two neighbouring runs never have the same look and no gap
    spans = got.findall(ns + "tspan")
    for a, b in zip(spans, spans[1:]):
        assert float(b.get("x")) > float(a.get("x"))
PY
"$BIN" frames --step all --format svg > /dev/null 2> "$tmp/err"
check "svg of every step is a usage error" test $? = 2
check "  ... that says to give --step" grep -q -- '--step N' "$tmp/err"

"$BIN" frames --format html --heads 4 --d-model 16 > "$tmp/html"
"$BIN" frames --step 8 --anim 0.5 --heads 4 --d-model 16 --color=never > "$tmp/half"
python3 - "$tmp/html" "$tmp/half" <<'PY' && ok "html: a deck that parses (HTML and XML), a slide per step, step 8's animation in it, nothing from the network" || fail "html content"
import sys, re, xml.etree.ElementTree as ET
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(s):
        super().__init__(); s.stack = []; s.slides = []; s.h2 = None; s.pre = None
    def handle_starttag(s, t, a):
        a = dict(a)
        if t not in ("meta",): s.stack.append(t)
        if t == "section": s.slides.append({"n": a.get("data-n"), "h2": "", "pre": []})
        if t == "h2": s.h2 = ""
        if t == "pre": s.slides[-1]["pre"].append([a["class"], ""]); s.pre = s.slides[-1]["pre"][-1]
        for k in ("src", "href"):
            assert k not in a, (t, a)      # nothing loaded from anywhere
    def handle_startendtag(s, t, a):           # <meta .../>: a void element
        assert t == "meta", t
    def handle_endtag(s, t):
        assert s.stack and s.stack[-1] == t, (s.stack[-3:], t)
        s.stack.pop()
        if t == "h2": s.slides[-1]["h2"] = s.h2; s.h2 = None
        if t == "pre": s.pre = None
    def handle_data(s, d):
        if s.h2 is not None: s.h2 += d
        if s.pre is not None: s.pre[1] += d
text = open(sys.argv[1], encoding="utf-8").read()
p = P(); p.feed(text); p.close()
assert not p.stack, p.stack
ET.fromstring(text.split("\n", 1)[1])          # well-formed XML too (after the doctype)
assert not re.search(r"https?:|@import|url\(", text), "a network reference"
assert [s["n"] for s in p.slides] == [str(i) for i in range(11)], [s["n"] for s in p.slides]
assert p.slides[8]["h2"].startswith("step 8/10: make contiguous"), p.slides[8]["h2"]
kinds = [[k for k, _ in s["pre"]] for s in p.slides]
for i, k in enumerate(kinds):                    # the final frame last, animations first
    assert k[-1] == "frame" and k.count("frame") == 1, (i, k)
    assert len(k) == (23 if i in (2, 3, 8) else 1), (i, len(k))
half = open(sys.argv[2], encoding="utf-8").read().split("\n", 1)[1]
mid = p.slides[8]["pre"][11][1]                  # phase 11/22: as --anim 0.5 draws it
assert [l.rstrip() for l in mid.split("\n")] == [l.rstrip() for l in half.split("\n")], mid
PY
"$BIN" frames --format cast > "$tmp/cast"
"$BIN" frames --color=never > "$tmp/all"
python3 - "$tmp/cast" "$tmp/all" <<'PY' && ok "cast: asciicast v2, times rising, animations, each step's frame as in text" || fail "cast content"
import sys, json, re
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
head = json.loads(lines[0])
assert head["version"] == 2 and head["width"] == 80 and head["height"] == 24, head
ev = [json.loads(l) for l in lines[1:]]
times = [e[0] for e in ev]
assert all(b >= a for a, b in zip(times, times[1:])) and all(e[1] == "o" for e in ev)
assert len(ev) > 11 + 3 * 10, len(ev)          # three steps animate, frame by frame
plain = [re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", e[2]).replace("\r\n", "\n") for e in ev]
frames = open(sys.argv[2], encoding="utf-8").read().split("=== step ")[1:]
for f in frames:
    body = "\n".join(l.rstrip() for l in f.split("\n")[1:25]).rstrip()
    assert any("\n".join(l.rstrip() for l in p.split("\n")).rstrip() == body for p in plain), f.split("\n")[0]
assert ev[-1][2] == "" and ev[-1][0] > ev[-2][0]   # the last frame is held
PY

"$BIN" frames --step 2 --format ansi > "$tmp/ansi"
check "ansi carries colour even into a file" grep -q $'\x1b\\[' "$tmp/ansi"
"$BIN" frames --format png > /dev/null 2> "$tmp/err"
check "an unknown format is a usage error" test $? = 2
check "  ... one line naming the flag" test "$(wc -l < "$tmp/err")" = 1 -a -n "$(grep -- '--format' "$tmp/err")"
NO_COLOR=1 "$BIN" frames --step 3 --format svg --color=never > "$tmp/mono.svg"
check "monochrome SVG has no head colours" test "$(grep -c '#62c4c4' "$tmp/mono.svg")" = 0

# --inspect names an element of the step's tensor: out of range or too few
# indices is a usage error, not a silently different element
for a in 0,9,9,9 0,1,2,3 0,1,2; do
  "$BIN" frames --step 2 --inspect $a > /dev/null 2> "$tmp/err"
  check "--inspect $a at step 2 is refused (exit 2)" test $? = 2
done
check "  ... saying which dimension" grep -q 'outside dimension 2 of Q_split (1, 4, 2, 4) (size 2)' <("$BIN" frames --step 2 --inspect 0,1,2,3 2>&1)
# a failure picture is one frame, under the step it belongs to
check "--view wrong prints one frame" test "$("$BIN" frames --view wrong | grep -c '^=== ')" = 1
check "--view noscale is the softmax step's" grep -q '^=== step 5/10: softmax, view noscale' <("$BIN" frames --view noscale)
finish
