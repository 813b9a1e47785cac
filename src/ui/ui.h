/* ui.h - what every screen of the TUI has (ncdu's *_draw / *_key pairs).
 *
 * A Screen draws its whole frame from its state onto a Canvas, and turns a key
 * into a state change plus UI_* flags; it never draws from a key handler and
 * never touches the terminal.  ui/screenstack.c owns the open screens: it
 * calls key() and redraws, pushes, pops or quits as the flags say (htop's
 * HandlerResult); ui/tui.c reads the keys.  Keys are Unicode code points or the UI_K_* values
 * of ui/keys.h, so no screen needs <curses.h>.
 */
#ifndef MHAVIZ_UI_H
#define MHAVIZ_UI_H

#include "draw/canvas.h"
#include "engine/mha.h"
#include "ui/keys.h"

/* What a key handler returns: the loop decides what to do. */
enum {
    UI_NONE = 0, /* key not used */
    UI_HANDLED = 1,
    UI_REDRAW = 2,
    UI_PUSH = 4, /* open the screen the handler left in *push on top */
    UI_BACK = 8, /* close this screen */
    UI_QUIT = 16,
    UI_ANIMATE = 32, /* call tick() until it stops returning UI_ANIMATE */
    UI_HELP = 64     /* open the `?` help at this screen's section (ScreenOps.help) */
};

typedef enum { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER } ColorMode;

/* State shared by all screens: the configuration, the run it gives, options. */
typedef struct Ui {
    MhaConfig cfg;
    Mha *mha;             /* the run of cfg; owned; replaced by ui_set_config */
    int ascii;            /* glyphs: 1 = ASCII table (non-UTF-8 locale, --ascii) */
    int color;            /* 1 colour, 0 monochrome (NO_COLOR, --color=never, no colours) */
    int animation;        /* 0 with --no-animation or after 'a' */
    double anim_speed;    /* 1.0 normal; + / - change it */
    double autoplay;      /* seconds per step; 0 = off */
    int no_save;          /* --no-save: progress and scores are not written */
    int large;            /* --large, the walkthrough's L: large print for a projector */
    int mouse_x, mouse_y; /* last UI_K_MOUSE click */
    char status[200];     /* one line shown at the bottom; "" = none */
    /* Compare (walk --compare FLAGS, the walkthrough's x): a second run
     * beside ui->mha.  cmp is NULL when compare is off; cmp_cfg is compare
     * applied to cfg, again whenever cfg changes (ui_set_config). */
    Mha *cmp; /* owned */
    MhaConfig cmp_cfg;
    char compare[128]; /* the FLAGS; "" = kv_heads 1 (MQA), or MHA when cfg is MQA */
    /* cmd's flag parser (cli_compare), so FLAGS read as on a command line */
    int (*compare_parse)(const char *flags, const MhaConfig *a, MhaConfig *b, char *err,
                         size_t errlen);
    int background;     /* 1: ui_set_config computes a big run aside (ui/runjob.h) */
    struct RunJob *job; /* that run, while it computes; owned */
} Ui;

typedef struct Screen Screen;

/* What a kind of screen does: one const table per kind (htop's
 * MainPanel_class), each instance points at its kind's.  Call them through
 * screen_draw, screen_tick and screen_close (ui/screen.h); a key through
 * screenstack_send (ui/screenstack.h). */
typedef struct ScreenOps {
    void (*draw)(Screen *s, const Ui *ui, Canvas *c); /* whole frame, from state */
    /* A key and its Action, looked up once by the screen stack in the
     * screen's contexts (keys, keys_now below): a screen switches on a and
     * reads key only for what the table leaves open (the digit of
     * ACT_DIGIT, a character typed, UI_K_RESIZE with ACT_NONE).  Returns
     * UI_* flags; UI_NONE for an ACT_HELP or ACT_BACK leaves them to the
     * stack, which opens the help or closes the screen, as on every screen.
     * A screen to open goes in *push (never NULL here) with UI_PUSH, and is
     * the loop's from then on. */
    int (*key)(Screen *s, Ui *ui, Action a, int key, Screen **push);
    int (*tick)(Screen *s, Ui *ui, double now_sec); /* may be NULL; UI_ANIMATE while moving */
    void (*free)(Screen *s);                        /* frees st and s; NULL: screen_free */
    unsigned help;                                  /* the KC_* section UI_HELP opens; 0: the top */
    unsigned keys; /* the KC_* context its keys are looked up in (ui/keys.h) */
    /* May be NULL.  The contexts of its state now, when they change with it
     * (inspect mode, a typed answer, a quiz's phase), in the order they are
     * looked up, ended by 0: the first that binds a key gives its Action
     * (inspect mode's h j k l before the walkthrough's).  Replaces keys. */
    const unsigned *(*keys_now)(const Screen *s);
} ScreenOps;

struct Screen {
    const ScreenOps *ops;
    const char *title;
    void *st; /* the screen's own state */
};

#if defined(__GNUC__)
#define UI_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define UI_PRINTF(f, a)
#endif

/* Sets the one status line (ui->status, shown at the bottom until the next
 * key) to the printf-formatted text, cut to fit.  Text from outside (a file
 * name, a lesson's error line, a typed statement) may go in as it is: the
 * result goes through sanitize_text, so a control character shows as its
 * escape (\x1b) on the screen and on stderr alike.  ui_status(ui, "%s", "")
 * clears it. */
void ui_status(Ui *ui, const char *fmt, ...) UI_PRINTF(2, 3);

/* Replaces ui->cfg and ui->mha with a run of cfg and returns 0.  On an
 * invalid cfg, keeps the last valid state, writes the reason to ui->status
 * and returns -1.  A run still computing is cancelled first.  With
 * ui->background set and a big run (runjob_worth), returns 1 at once: the run
 * computes in a worker while ui->cfg and ui->mha stay as they were, until
 * ui_poll_run swaps them (or ui_cancel_run drops it). */
int ui_set_config(Ui *ui, const MhaConfig *cfg);

/* Compare on (a run of ui->compare applied to ui->cfg in ui->cmp) or off.
 * On a bad FLAGS or a run that fails: compare stays off, the reason in
 * ui->status, -1. */
int ui_compare_set(Ui *ui, int on);

/* The loop's side of a run computing aside.  ui_poll_run: 1 when it has
 * just finished (ui->cfg and ui->mha replaced and "now ..." in ui->status,
 * or the reason it failed there), 0 while it computes or when there is none.
 * ui_cancel_run: 1 when there was one to drop (ui->status says so).
 * ui_run_line: 1 and "computing seq 1024, d_model 1024 ... 0.4 s (Esc
 * cancels)" in buf while one computes, 0 otherwise. */
int ui_poll_run(Ui *ui);
int ui_cancel_run(Ui *ui);
int ui_run_line(const Ui *ui, char *buf, size_t n);

/* Frees ui->mha and ui->cmp (the runs the screens share) and cancels a run
 * computing. */
void ui_free(Ui *ui);

#endif
