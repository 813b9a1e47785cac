#!/usr/bin/env python3
"""deck_browser.py - mhaviz's HTML decks driven in a real browser.

Opens each deck (`frames --format html`, `lesson --frames N --format html`)
from a file:// URL in headless Chromium through chromedriver (Debian's
chromium, chromium-driver and python3-selenium), presses a presenter's keys
and checks what the page shows: which slide, its text against the text frame
the same command prints, the animation of step 8 frame by frame, clicker keys
during an animation, b (blank, the next key only brings the slide back, an
animation held where it was), f (full screen), and that text from a lesson
file stays text.  Screenshots of steps 2 and 8 go to --shots.

Called by tests/e2e_deck.sh, which writes the decks and the wanted text into
--dir:  walk.html, walk-S.txt (step S), walk-8-anim.txt (the 22 animation
frames of step 8, each as `frames --anim k/22` draws it, separated by \\f),
lesson.html, lesson-P.txt (page P, from 1), hostile.html, hostile-1.txt.

Prints one "ok - NAME" or "not ok - NAME: why" line per check; exits 1 when
one failed.  Waits poll with deadlines (a loaded machine is slow, never
wrong); the one fixed wait is the blank hold, which must outlast the
animation to show that it is held.
"""
import argparse
import os
import shutil
import signal
import sys
import tempfile
import time

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

# Chromium as root with no network: no sandbox, and nothing that dials out
# (without these it waits on connections that never come).
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage", "--window-size=1280,800"]
DEADLINE = 15.0      # seconds any one wait may take on a loaded machine
ANIM_FRAMES = 22     # frames.c: 0.9 s at 25 frames/s
ANIMATED = (2, 3, 8)

failures = 0


def ok(name):
    print("ok - " + name, flush=True)


def fail(name, why):
    global failures
    failures += 1
    print("not ok - %s: %s" % (name, why), flush=True)


def check(name, cond, why=""):
    ok(name) if cond else fail(name, why)
    return cond


def norm(text):
    """A frame as text compares: trailing spaces and the final newline off."""
    return "\n".join(l.rstrip() for l in text.split("\n")).rstrip("\n")


def want(d, name):
    with open(os.path.join(d, name), encoding="utf-8") as f:
        return norm(f.read())


# What the page shows, read as a viewer sees it: the slide on screen, the
# body's state (still, playing, blank) and the text of every <pre> that is
# rendered (none while blank).  window.__log holds what the recorder saw.
STATE_JS = """
var b = document.body, s = document.querySelector('section.slide.on'), vis = [];
if (s) s.querySelectorAll('pre').forEach(function (p) {
  if (p.getClientRects().length) vis.push(p.innerText); });
return {slide: +b.getAttribute('data-slide'), state: b.getAttribute('data-state'),
        visible: vis, caption: s ? s.querySelector('h2').textContent : null,
        typed: document.getElementById('typed').textContent,
        full: !!document.fullscreenElement};
"""

# A recorder: every animation frame that comes on screen (its index), every
# slide change and every key, with the page's clock, in window.__log.
RECORD_JS = """
window.__log = [];
var b = document.body;
new MutationObserver(function (ms) {
  ms.forEach(function (m) {
    var t = m.target, now = performance.now();
    if (t.tagName == 'PRE' && t.classList.contains('on'))
      window.__log.push(['frame', Array.prototype.indexOf.call(
        t.parentNode.querySelectorAll('pre.anim'), t), now]);
    if (t == b && m.attributeName == 'data-slide')
      window.__log.push(['slide', +b.getAttribute('data-slide'), now]);
  });
}).observe(b, {attributes: true, subtree: true, attributeFilter: ['class', 'data-slide']});
window.addEventListener('keydown', function (e) {
  window.__log.push(['key', e.key, performance.now(), b.getAttribute('data-state'),
                     +b.getAttribute('data-slide')]);
}, true);
"""


def state(drv):
    return drv.execute_script(STATE_JS)


def log(drv, clear=True):
    entries = drv.execute_script("var l = window.__log; if (arguments[0]) window.__log = [];"
                                 " return l;", clear)
    return entries or []


def wait(drv, pred, what):
    """Polls until pred(state) holds; the last state, or None at the deadline."""
    end = time.monotonic() + DEADLINE
    while True:
        st = state(drv)
        if pred(st):
            return st
        if time.monotonic() > end:
            print("# waited %.0f s for %s; the page: slide %s, %s, %d pre shown" %
                  (DEADLINE, what, st["slide"], st["state"], len(st["visible"])), flush=True)
            return None
        time.sleep(0.02)


def press(drv, *keys):
    ActionChains(drv).send_keys(*keys).perform()


def shows(drv, slide, text, what):
    """Waits until slide is still on screen with exactly text; checks it."""
    st = wait(drv, lambda s: s["slide"] == slide and s["state"] == "still" and
              [norm(v) for v in s["visible"]] == [text], what)
    return check(what, st is not None, "not shown within %.0f s" % DEADLINE)


def open_deck(drv, path):
    drv.get("file://" + os.path.abspath(path))
    wait(drv, lambda s: s["state"] == "still", "the deck to load")
    drv.execute_script(RECORD_JS)


def frames_of(entries):
    return [e[1] for e in entries if e[0] == "frame"]


def test_walk(drv, d, shots):
    w = [want(d, "walk-%d.txt" % s) for s in range(11)]
    with open(os.path.join(d, "walk-8-anim.txt"), encoding="utf-8") as f:
        anim8 = [norm(t) for t in f.read().split("\f")]
    open_deck(drv, os.path.join(d, "walk.html"))
    shows(drv, 0, w[0], "walk: opens on step 0, its text as frames --step 0 prints it")

    # Right through every step; 2, 3 and 8 play all their frames first
    for s in range(1, 11):
        log(drv)
        press(drv, Keys.ARROW_RIGHT)
        shows(drv, s, w[s], "walk: Right shows step %d, text equal to frames --step %d" % (s, s))
        got = frames_of(log(drv))
        if s in ANIMATED:
            check("walk: step %d plays its %d animation frames in order" % (s, ANIM_FRAMES),
                  got == list(range(ANIM_FRAMES)), "frames shown %s" % got)
        else:
            check("walk: step %d has no animation" % s, got == [], "frames shown %s" % got)

    # what step 8 played is what the canvas draws at each phase
    texts = drv.execute_script("return Array.prototype.map.call(document.querySelectorAll("
                               "'section.slide')[8].querySelectorAll('pre.anim'), "
                               "function (p) { return p.textContent; });")
    check("walk: step 8's animation frames are frames --step 8 --anim k/22, k = 0..21",
          [norm(t) for t in texts] == anim8, "%d frames, first differs at %s" % (
              len(texts), next((k for k, (a, b) in enumerate(zip(texts, anim8))
                                if norm(a) != b), None)))

    for keys, slide, name in [((Keys.HOME,), 0, "Home: the first step"),
                              ((Keys.SPACE,), 1, "Space: next"),
                              ((Keys.END,), 10, "End: the last step"),
                              ((Keys.PAGE_UP,), 9, "PgUp: back"),
                              ((Keys.PAGE_DOWN,), 10, "PgDn: next"),
                              ((Keys.LEFT,), 9, "Left: back"),
                              ((Keys.BACKSPACE,), 8, "Backspace: back, no animation"),
                              (("5", Keys.ENTER), 5, "5 Enter: step 5"),
                              (("g", "3", Keys.ENTER), 3, "g 3 Enter: step 3")]:
        log(drv)
        press(drv, *keys)
        shows(drv, slide, w[slide], "walk: " + name)
        got = frames_of(log(drv))  # only a next step animates
        check("walk: %s plays nothing" % name.split(":")[0], got == [], "frames shown %s" % got)
    press(drv, "9", "9", Keys.ENTER)
    st = wait(drv, lambda s: "no slide 99" in s["typed"], "the note")
    check("walk: 99 Enter stays on step 3 and says there is no slide 99",
          st is not None and st["slide"] == 3, "%s" % st)

    # a clicker key during step 8's copy goes on (or back) at once
    for key, slide, name in [(Keys.PAGE_DOWN, 9, "PgDn"), (Keys.PAGE_UP, 7, "PgUp"),
                             (Keys.ARROW_RIGHT, 9, "Right"), (Keys.ARROW_LEFT, 7, "Left")]:
        for attempt in range(3):  # the key must land while it plays: retry if it did not
            press(drv, "7", Keys.ENTER)
            shows(drv, 7, w[7], "walk: 7 Enter (before %s during the animation)" % name)
            log(drv)
            press(drv, Keys.ARROW_RIGHT, key)
            st = wait(drv, lambda s: s["state"] == "still" and s["slide"] == slide, name)
            entries = log(drv)
            keyev = [e for e in entries if e[0] == "key"]
            if len(keyev) == 2 and keyev[1][3] == "playing" and keyev[1][4] == 8:
                break
        moved = [e for e in entries if e[0] == "slide" and e[2] >= keyev[1][2]]
        shown = frames_of(entries)
        check("walk: %s during step 8's animation shows step %d" % (name, slide),
              st is not None and keyev[1][3] == "playing" and [norm(v) for v in st["visible"]] ==
              [w[slide]] and len(shown) < ANIM_FRAMES,
              "state at the key %s, slide %s, %d frames shown" % (
                  keyev[1][3], st and st["slide"], len(shown)))
        # within one frame: the key's own handler moves the slide, no animation
        # frame comes between (the time is the page's, for the report only)
        after = entries[entries.index(keyev[1]) + 1:]
        check("walk: %s moves to step %d before any other frame is drawn%s" % (
            name, slide, " (%.1f ms in the page)" % (moved[0][2] - keyev[1][2]) if moved else ""),
            after[:1] and after[0][0] == "slide" and after[0][1] == slide,
            "after the key: %s" % after[:3])

    # b blanks; the next key (a clicker key here) only brings the slide back
    press(drv, "5", Keys.ENTER)
    shows(drv, 5, w[5], "walk: 5 Enter")
    press(drv, "b")
    st = wait(drv, lambda s: s["state"] == "blank", "blank")
    check("walk: b blanks the screen (no frame shown)",
          st is not None and st["visible"] == [] and st["caption"] is not None, "%s" % st)
    press(drv, Keys.ARROW_RIGHT)
    shows(drv, 5, w[5], "walk: the next key brings step 5 back, and only that")

    # b during the animation holds it where it is, past its length
    for attempt in range(3):  # b must land while it plays: retry if it did not
        press(drv, "7", Keys.ENTER)
        shows(drv, 7, w[7], "walk: 7 Enter (before b during the animation)")
        log(drv)
        press(drv, Keys.ARROW_RIGHT, "b")
        st = wait(drv, lambda s: s["state"] == "blank", "blank during the animation")
        entries = log(drv)
        held = frames_of(entries)
        keyev = [e for e in entries if e[0] == "key"]
        if len(keyev) == 2 and keyev[1][3] == "playing":
            break
        press(drv, Keys.ESCAPE)
    time.sleep(1.2)  # longer than the animation: nothing may move meanwhile
    st2, after = state(drv), frames_of(log(drv))
    check("walk: b during step 8's animation holds it (1.2 s, no frame moves)",
          st is not None and st2["state"] == "blank" and st2["slide"] == 8 and after == [] and
          len(held) < ANIM_FRAMES, "held at %s, then %s, %s" % (held, after, st2["state"]))
    press(drv, Keys.ARROW_RIGHT)
    shows(drv, 8, w[8], "walk: the next key plays the rest, then step 8's frame")
    rest = frames_of(log(drv))
    check("  ... from the frame after the one held, to the last",
          held and rest == list(range(held[-1] + 1, ANIM_FRAMES)),
          "held %s, then %s" % (held[-1:], rest))

    # f: full screen and back
    press(drv, "f")
    st = wait(drv, lambda s: s["full"], "full screen")
    check("walk: f goes full screen", st is not None and st["slide"] == 8, "")
    press(drv, "f")
    st = wait(drv, lambda s: not s["full"], "full screen off")
    check("walk: f again leaves it", st is not None and st["slide"] == 8, "")

    # printed: a handout, every slide's final frame and nothing else
    drv.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    shown = drv.execute_script("return Array.prototype.map.call(document.querySelectorAll("
                               "'section.slide'), function (s) { return Array.prototype.filter"
                               ".call(s.querySelectorAll('pre'), function (p) { return "
                               "p.getClientRects().length; }).map(function (p) { return "
                               "p.className; }); });")
    drv.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
    check("walk: printed, every slide shows its final frame only", shown == [["frame"]] * 11,
          "%s" % shown)

    for s in (2, 8):
        press(drv, str(s), Keys.ENTER)
        shows(drv, s, w[s], "walk: %d Enter" % s)
        path = os.path.join(shots, "deck-step%d.png" % s)
        check("walk: a screenshot of step %d in %s" % (s, path),
              drv.save_screenshot(path) and os.path.getsize(path) > 10000, "")


def test_lesson(drv, d):
    pages = sorted(int(n[7:-4]) for n in os.listdir(d) if n.startswith("lesson-"))
    w = {p: want(d, "lesson-%d.txt" % p) for p in pages}
    open_deck(drv, os.path.join(d, "lesson.html"))
    shows(drv, 0, w[1], "lesson: opens on page 1, its text as lesson --frames prints it")
    for p in pages[1:]:
        press(drv, Keys.PAGE_DOWN)
        shows(drv, p - 1, w[p], "lesson: PgDn shows page %d, as lesson --frames --page %d" % (p, p))
    press(drv, Keys.HOME)
    shows(drv, 0, w[1], "lesson: Home: page 1")
    press(drv, "3", Keys.ENTER)
    shows(drv, 2, w[3], "lesson: 3 Enter: page 3 (digits name pages from 1)")
    cap = state(drv)["caption"]
    check("lesson: the caption names the page", "page 3/%d" % len(pages) in cap, cap)


def test_hostile(drv, d, title):
    open_deck(drv, os.path.join(d, "hostile.html"))
    shows(drv, 0, want(d, "hostile-1.txt"), "lesson file text: shown as text, as in the terminal")
    got = drv.execute_script("return [document.title, document.scripts.length, "
                             "document.querySelectorAll('img, b, title').length];")
    check("lesson file text: the title is the file's, literally", got[0] == "mhaviz: " + title,
          repr(got[0]))
    check("lesson file text: no element comes from it (one script, no img, b, second title)",
          got[1] == 1 and got[2] == 1, "%s" % got)
    try:
        drv.switch_to.alert
        fail("lesson file text: no alert ran", "an alert is open")
    except NoAlertPresentException:
        ok("lesson file text: no alert ran")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--chromium", required=True)
    ap.add_argument("--driver", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--shots", required=True)
    ap.add_argument("--title", required=True, help="the hostile lesson's @title")
    a = ap.parse_args()
    # timeout(1) ends us with TERM: quit the browser on the way out all the same
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(124))
    opts = webdriver.ChromeOptions()
    opts.binary_location = a.chromium
    profile = tempfile.mkdtemp(prefix="mhaviz-chromium-")
    for f in CHROMIUM_FLAGS + ["--user-data-dir=" + profile]:
        opts.add_argument(f)
    t0 = time.monotonic()
    try:
        drv = webdriver.Chrome(service=Service(a.driver), options=opts)
    except Exception as e:  # one line, not a traceback
        shutil.rmtree(profile, ignore_errors=True)
        fail("chromium starts under chromedriver", str(e).strip().split("\n")[0])
        return 1
    try:
        drv.set_page_load_timeout(DEADLINE * 2)
        drv.set_script_timeout(DEADLINE)
        test_walk(drv, a.dir, a.shots)
        test_lesson(drv, a.dir)
        test_hostile(drv, a.dir, a.title)
    finally:
        drv.quit()
        shutil.rmtree(profile, ignore_errors=True)
    print("# the browser part took %.1f s" % (time.monotonic() - t0))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
