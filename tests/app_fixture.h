/* app_fixture.h - helpers for tests that drive Screens without a terminal:
 * a Ui set up as a command line would, frames drawn on a Canvas, keys pressed
 * the way the screen stack delivers them.  Header-only (static), for check_*.c. */
#ifndef MHAVIZ_APP_FIXTURE_H
#define MHAVIZ_APP_FIXTURE_H

#include <check.h>
#include <stdio.h>

#include "cmd/interactive.h"
#include "draw/canvas.h"
#include "ui/form.h"
#include "ui/help.h"
#include "ui/home.h"
#include "ui/keys.h"
#include "ui/screen.h"
#include "ui/screenstack.h"
#include "ui/walk.h"

/* A Ui as `mhaviz walk ARGS...` would set it up. */
static inline void ui_with(Ui *ui, const char *a1, const char *a2)
{
    char *argv[4] = {"walk", (char *)a1, (char *)a2, NULL};
    int argc = 1 + (a1 != NULL) + (a2 != NULL);
    InteractiveOptions o;
    ck_assert_int_eq(interactive_setup(ui, &o, argc, argv, 1, 1, "usage"), -1);
    ck_assert_ptr_nonnull(ui->mha);
}

static inline Canvas *draw(Screen *s, Ui *ui, int w, int h)
{
    Canvas *c = canvas_new(w, h);
    ck_assert_ptr_nonnull(c);
    screen_draw(s, ui, c);
    return c;
}

/* Does the frame of s at w x h contain text? */
static inline int shows(Screen *s, Ui *ui, int w, int h, const char *text)
{
    Canvas *c = draw(s, ui, w, h);
    int r = canvas_contains(c, text);
    canvas_free(c);
    return r;
}

static inline int step_shown(Screen *s, Ui *ui, int step)
{
    char want[32];
    snprintf(want, sizeof want, "step %d/%d", step, MS_COUNT - 1);
    return shows(s, ui, 80, 24, want);
}

/* The screen the last press() opened (the test's to screen_close), or NULL. */
static Screen *pushed;

/* Keys as the loop delivers them: the status line is cleared first. */
static inline int press(Screen *s, Ui *ui, int key)
{
    ui->status[0] = 0;
    pushed = NULL;
    return screenstack_send(s, ui, key, &pushed);
}

/* '?' on s returns UI_HELP; the screen stack then opens the help at s's
 * section (ScreenOps.help), as this does.  The test's to screen_close. */
static inline Screen *press_help(Screen *s, Ui *ui)
{
    ck_assert_int_eq(press(s, ui, '?') & (UI_HELP | UI_PUSH), UI_HELP);
    ck_assert_ptr_null(pushed);
    Screen *h = help_open_at(ui, s->ops->help);
    ck_assert_ptr_nonnull(h);
    return h;
}

#endif
