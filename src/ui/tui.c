/* tui.c - the terminal: ncurses init and restore, the input loop, resize,
 * and the blit of a Canvas.  The only file that includes <curses.h>.
 *
 * The loop (htop's CRT beside its ScreenManager): ui/screenstack.c decides,
 * this file talks to the terminal.  When the stack says the frame is out of
 * date, the top screen paints its whole frame onto one reused Canvas, the
 * cells go into stdscr and are flushed once (wnoutrefresh + doupdate: ncurses
 * sends only the cells that changed); then it waits for input in pselect as
 * long as the stack allows (screenstack_wait_ms: without limit unless
 * something moves, then at most 30 frames a second): an idle mhaviz makes no
 * system call until a key, a resize or a signal.
 *
 * Signals (less's signal.c): the handlers only set a flag.  INT, TERM, HUP,
 * QUIT and WINCH stay blocked while the loop runs and are let in only inside
 * pselect, atomically with the wait, so a signal that lands between the
 * check of the flag and the wait is not lost: pselect returns at once.
 */
#include "ui/tui.h"

#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <term.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include "base/clock.h"
#include "draw/canvas.h"
#include "ui/screen.h"
#include "ui/screenstack.h"

#define TUI_MAX_READ_ERRORS 100 /* reads in a row that find nothing: the terminal is gone */
#define TUI_NSIGS 4

/* The signals that end the program: the terminal is restored, then
 * interactive.c dies of the signal. */
static const int tui_sigs[TUI_NSIGS] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

static volatile sig_atomic_t tui_signal; /* the signal that asks us to stop, or 0 */

static void tui_on_signal(int sig)
{
    tui_signal = sig;
}

/* tui_sigs set the flag.  Installed before newterm, so ncurses keeps its
 * hands off them (it only catches signals still at SIG_DFL). */
static void tui_signals(struct sigaction *old)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = tui_on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;
    for (int i = 0; i < TUI_NSIGS; i++)
        sigaction(tui_sigs[i], &sa, &old[i]);
}

static void tui_signals_restore(const struct sigaction *old)
{
    for (int i = 0; i < TUI_NSIGS; i++)
        sigaction(tui_sigs[i], &old[i], NULL);
}

/* Blocks tui_sigs and SIGWINCH (ncurses' resize flag) for the loop; *old is
 * the mask to restore, *wait_mask the mask pselect waits with (old, with
 * those signals let in). */
static void tui_block(sigset_t *old, sigset_t *wait_mask)
{
    sigset_t set;
    sigemptyset(&set);
    for (int i = 0; i < TUI_NSIGS; i++)
        sigaddset(&set, tui_sigs[i]);
    sigaddset(&set, SIGWINCH);
    sigprocmask(SIG_BLOCK, &set, old);
    *wait_mask = *old;
    for (int i = 0; i < TUI_NSIGS; i++)
        sigdelset(wait_mask, tui_sigs[i]);
    sigdelset(wait_mask, SIGWINCH);
}

/* Curses attributes for each Style, from canvas.c's theme tables; colour
 * pair i + 1 belongs to style i. */
static attr_t tui_attr[ST_COUNT];
static short tui_pair[ST_COUNT];

static void tui_styles(int color)
{
    const CanvasStyleSpec *t = color ? canvas_styles : canvas_styles_mono;
    for (int i = 0; i < ST_COUNT; i++) {
        attr_t a = A_NORMAL;
        if (t[i].bold) a |= A_BOLD;
        if (t[i].reverse) a |= A_REVERSE;
        if (t[i].underline) a |= A_UNDERLINE;
        if (t[i].dim) a |= A_DIM;
        tui_attr[i] = a;
        tui_pair[i] = 0;
        /* In colour every style has a pair, ST_NORMAL too (default on
         * default): going from a head's colour back to plain text is then a
         * pair switch, not sgr0 plus a colour reset, which halves the bytes
         * of a candy bar row. */
        if (color) {
            init_pair((short)(i + 1), t[i].fg, t[i].bg);
            tui_pair[i] = (short)(i + 1);
        }
    }
}

/* The canvas into stdscr.  Every cell is written; ncurses compares with what
 * the terminal shows and sends only the differences at doupdate(). */
static void tui_blit(const Canvas *c, int ascii)
{
    for (int y = 0; y < c->h && y < LINES; y++) {
        for (int x = 0; x < c->w && x < COLS; x++) {
            const Cell *cell = &c->cells[(size_t)y * (size_t)c->w + (size_t)x];
            int st = cell->style < ST_COUNT ? cell->style : ST_NORMAL;
            wchar_t wc[2] = {0, 0};
            uint32_t ch = cell->ch ? cell->ch : ' ';
            wc[0] = (wchar_t)ch;
            /* ASCII table when asked; also for any glyph this locale cannot
             * show in exactly one column (a cell is one column). */
            if (ch >= 0x80 && (ascii || ch > 0x10FFFF || wcwidth(wc[0]) != 1))
                wc[0] = (wchar_t)canvas_ascii(ch);
            else if (ch < 0x20 || ch == 0x7f)
                wc[0] = ' ';
            cchar_t cc;
            setcchar(&cc, wc, tui_attr[st], tui_pair[st], NULL);
            mvwadd_wch(stdscr, y, x, &cc); /* ERR at the bottom-right corner, cell written */
        }
    }
}

/* The top screen's frame, from its state, flushed once. */
static int tui_draw(ScreenStack *st, const Ui *ui, Canvas **cv)
{
    int w = COLS > 0 ? COLS : 1, h = LINES > 0 ? LINES : 1;
    if (!*cv || (*cv)->w != w || (*cv)->h != h) {
        canvas_free(*cv);
        *cv = canvas_new(w, h);
        if (!*cv) return -1;
    }
    screenstack_draw(st, ui, *cv);
    tui_blit(*cv, ui->ascii);
    wnoutrefresh(stdscr);
    doupdate();
    return 0;
}

/* A curses key (wget_wch's return r and value) as a ui.h key; -1 to ignore. */
static int tui_key(int r, wint_t wch, Ui *ui)
{
    if (r == KEY_CODE_YES) {
        switch (wch) {
        case KEY_UP:
            return UI_K_UP;
        case KEY_DOWN:
            return UI_K_DOWN;
        case KEY_LEFT:
            return UI_K_LEFT;
        case KEY_RIGHT:
            return UI_K_RIGHT;
        case KEY_PPAGE:
            return UI_K_PGUP;
        case KEY_NPAGE:
            return UI_K_PGDN;
        case KEY_HOME:
            return UI_K_HOME;
        case KEY_END:
            return UI_K_END;
        case KEY_ENTER:
            return UI_K_ENTER;
        case KEY_BACKSPACE:
            return UI_K_BACKSPACE;
        case KEY_DC:
            return UI_K_DELETE;
        case KEY_BTAB:
            return UI_K_BTAB;
        case KEY_RESIZE:
            return UI_K_RESIZE;
        case KEY_MOUSE: {
            MEVENT ev;
            if (getmouse(&ev) != OK) return -1;
            if (!(ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED))) return -1;
            ui->mouse_x = ev.x;
            ui->mouse_y = ev.y;
            return UI_K_MOUSE;
        }
        default:
            return -1;
        }
    }
    switch (wch) {
    case '\r':
    case '\n':
        return UI_K_ENTER;
    case 27:
        return UI_K_ESC;
    case '\t':
        return UI_K_TAB;
    case 8:
    case 127:
        return UI_K_BACKSPACE;
    case 12:
        return UI_K_CTRL_L;
    case 1: /* Ctrl-A, Ctrl-E, Ctrl-K, Ctrl-U, Ctrl-W: line editing (ui/field.c) */
    case 5:
    case 11:
    case 21:
    case 23:
        return (int)wch;
    default:
        return wch < 0x20 ? -1 : (int)wch;
    }
}

/* Opens the terminal.  0, or -1 with err set (terminal untouched). */
static int tui_open(SCREEN **scr, Ui *ui, ColorMode color, int force_ascii, char *err, size_t n)
{
    const char *term = getenv("TERM");
    if (!term || !*term) {
        snprintf(err, n, "TERM is not set (set TERM, e.g. TERM=xterm-256color)");
        return -1;
    }
    setlocale(LC_CTYPE, ""); /* glyphs only: numbers keep the C decimal point */
    int utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
    /* One newterm, no setupterm before it: reading the terminfo entry twice
     * costs a tenth of a millisecond of the first frame.  (A newterm that
     * fails leaks its pre-screen inside ncurses; tests/lsan.supp says so.) */
    *scr = newterm((char *)term, stdout, stdin);
    if (!*scr) {
        snprintf(err, n, "unknown terminal type '%s' (set TERM, e.g. TERM=xterm-256color)", term);
        return -1;
    }
    const char *cup = tigetstr("cup");
    if (!cup || cup == (char *)-1) { /* a printing terminal (dumb): no screen to draw on */
        endwin();
        delscreen(*scr);
        snprintf(err, n,
                 "terminal type '%s' cannot move the cursor (set TERM, e.g. TERM=xterm-256color)",
                 term);
        return -1;
    }
    set_term(*scr);
    cbreak();
    noecho();
    nonl();
    intrflush(stdscr, FALSE);
    /* No typeahead check inside doupdate: ncurses would flush and poll the
     * keyboard every few lines, turning one frame into dozens of writes. */
    typeahead(-1);
    set_escdelay(25);
    curs_set(0);
    const char *nc = getenv("NO_COLOR");
    int want = color == COLOR_ALWAYS || (color == COLOR_AUTO && !(nc && *nc));
    ui->color = want && has_colors() && start_color() == OK;
    if (ui->color) use_default_colors();
    tui_styles(ui->color);
    ui->ascii = force_ascii || !utf8;
    return 0;
}

/* Function keys and the mouse.  Called once the first frame is on screen:
 * keypad() builds ncurses' table of every key sequence the terminal has
 * (a tenth of a millisecond for xterm-256color), which need not delay the
 * picture; no key is read before it. */
static void tui_input(void)
{
    /* Both forms of the cursor keys, whatever the terminfo entry says: CSI
     * (ESC [ A, normal mode) and SS3 (ESC O A, application mode).  A
     * terminal or multiplexer that ignores smkx sends the other form, which
     * ncurses would read as Esc, [ and A: Esc quits the walkthrough. */
    static const struct {
        const char *seq;
        int key;
    } alt[] = {
        {"\033[A", KEY_UP},    {"\033[B", KEY_DOWN}, {"\033[C", KEY_RIGHT},  {"\033[D", KEY_LEFT},
        {"\033[H", KEY_HOME},  {"\033[F", KEY_END},  {"\033OA", KEY_UP},     {"\033OB", KEY_DOWN},
        {"\033OC", KEY_RIGHT}, {"\033OD", KEY_LEFT}, {"\033OH", KEY_HOME},   {"\033OF", KEY_END},
        {"\033[1~", KEY_HOME}, {"\033[4~", KEY_END}, {"\033[5~", KEY_PPAGE}, {"\033[6~", KEY_NPAGE},
    };
    keypad(stdscr, TRUE);
    for (size_t i = 0; i < sizeof alt / sizeof alt[0]; i++)
        if (key_defined(alt[i].seq) != alt[i].key) define_key(alt[i].seq, alt[i].key);
    mousemask(BUTTON1_PRESSED | BUTTON1_CLICKED, NULL);
    mouseinterval(0);
}

/* What tui_read found. */
enum { TUI_KEY, TUI_NONE, TUI_FAILED };

/* The next key, waiting at most wait_ms (-1: no limit) with wait_mask
 * (tui_block) so that a signal ends the wait.  TUI_KEY with r and *wch as
 * wget_wch gives them; TUI_NONE on a timeout or a signal; TUI_FAILED when
 * the terminal said "ready" and no key could be read. */
static int tui_read(int *r, wint_t *wch, int wait_ms, const sigset_t *wait_mask)
{
    wtimeout(stdscr, 0); /* what ncurses holds or the terminal has sent, no wait */
    *r = wget_wch(stdscr, wch);
    if (*r != ERR) return TUI_KEY;
    if (wait_ms == 0 || tui_signal) return TUI_NONE;
    fd_set in;
    FD_ZERO(&in);
    FD_SET(STDIN_FILENO, &in);
    struct timespec ts = {wait_ms / 1000, (long)(wait_ms % 1000) * 1000000L};
    int s = pselect(STDIN_FILENO + 1, &in, NULL, NULL, wait_ms < 0 ? NULL : &ts, wait_mask);
    if (s <= 0) return TUI_NONE; /* timeout, or a signal ran its handler (EINTR) */
    *r = wget_wch(stdscr, wch);
    return *r != ERR ? TUI_KEY : TUI_FAILED;
}

static void tui_close(SCREEN *scr)
{
    endwin(); /* leaves the alternate screen, restores the tty modes */
    delscreen(scr);
}

int tui_run(Ui *ui, Screen *first, ColorMode color, int force_ascii, char *err, size_t errlen)
{
    err[0] = 0;
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        snprintf(err, errlen,
                 "%s is not a terminal; for text use `mhaviz frames` (the same pictures) or "
                 "`mhaviz export` (JSON)",
                 isatty(STDOUT_FILENO) ? "stdin" : "stdout");
        screen_close(first);
        return 2;
    }
    if (!first) return 1;
    ScreenStack st;
    screenstack_init(&st);
    screenstack_push(&st, first);

    struct sigaction old[TUI_NSIGS];
    sigset_t old_mask, wait_mask;
    tui_signal = 0;
    tui_signals(old);
    tui_block(&old_mask, &wait_mask);
    SCREEN *scr = NULL;
    if (tui_open(&scr, ui, color, force_ascii, err, errlen) < 0) {
        sigprocmask(SIG_SETMASK, &old_mask, NULL);
        tui_signals_restore(old);
        screenstack_free(&st);
        return 2;
    }

    Canvas *cv = NULL;
    int rc = 0, read_errors = 0, input_ready = 0;
    err[0] = 0;
    while (screenstack_live(&st) && !tui_signal) {
        if (screenstack_tick(&st, ui, clock_now())) {
            if (tui_draw(&st, ui, &cv) < 0) {
                snprintf(err, errlen, "out of memory for a %dx%d frame", COLS, LINES);
                rc = 1;
                break;
            }
            if (!input_ready) { /* after the first frame is out: see tui_input */
                tui_input();
                input_ready = 1;
            }
        }
        wint_t wch = 0;
        int r = ERR;
        int got = tui_read(&r, &wch, screenstack_wait_ms(&st, ui, clock_now()), &wait_mask);
        if (tui_signal) break;
        if (got == TUI_FAILED && ++read_errors >= TUI_MAX_READ_ERRORS) {
            /* ready again and again with nothing to read: the terminal is
             * gone; stop rather than spin */
            snprintf(err, errlen, "cannot read the terminal any more");
            rc = 1;
            break;
        }
        if (got != TUI_KEY) continue; /* a timeout (tick next), a resize flag, a signal */
        read_errors = 0;
        int k = tui_key(r, wch, ui);
        if (k < 0) continue;
        if (screenstack_key(&st, ui, k) & SS_REPAINT)
            clearok(curscr, TRUE); /* repaint every cell on the next flush */
    }
    tui_close(scr);
    sigprocmask(SIG_SETMASK, &old_mask, NULL); /* a pending one only sets the flag */
    tui_signals_restore(old);
    int sig = tui_signal;
    canvas_free(cv);
    screenstack_free(&st);
    if (sig) return 128 + sig;
    return rc;
}
