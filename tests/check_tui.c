/* check_tui.c - the curses backend (tui.c) on a real pty, in this process:
 * stdin and stdout are pointed at the pty's slave for the length of one
 * tui_run, and the test reads what the program sent from the master.
 *
 * - Each signal that ends the program (INT, TERM, HUP, QUIT), raised while a
 *   frame is drawn, ends tui_run with 128 + N and the terminal restored: tty
 *   modes as before, alternate screen left, cursor shown, the signal's old
 *   handler and the signal mask back.  A signal path that skipped endwin, or
 *   a signal with no handler (QUIT once), fails here.
 * - Both forms of the cursor keys (CSI ESC [ A and SS3 ESC O A, Home, End,
 *   PgUp, PgDn) arrive as the same keys under every terminal type.
 */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* posix_openpt, ptsname */
#endif
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "check_main.h"
#include "draw/canvas.h"
#include "ui/tui.h"
#include "ui/ui.h"

/* ---- a pty as this process's terminal ----------------------------------- */

typedef struct {
    int master, slave;
    int saved_in, saved_out;
    struct termios before;
} Pty;

static Pty pty;

static void pty_open(const char *term)
{
    pty.master = posix_openpt(O_RDWR | O_NOCTTY);
    ck_assert_int_ge(pty.master, 0);
    ck_assert_int_eq(grantpt(pty.master), 0);
    ck_assert_int_eq(unlockpt(pty.master), 0);
    pty.slave = open(ptsname(pty.master), O_RDWR | O_NOCTTY);
    ck_assert_int_ge(pty.slave, 0);
    struct winsize ws = {24, 80, 0, 0};
    ck_assert_int_eq(ioctl(pty.slave, TIOCSWINSZ, &ws), 0);
    ck_assert_int_eq(tcgetattr(pty.slave, &pty.before), 0);
    fcntl(pty.master, F_SETFL, O_NONBLOCK);
    fflush(stdout);
    pty.saved_in = dup(STDIN_FILENO);
    pty.saved_out = dup(STDOUT_FILENO);
    dup2(pty.slave, STDIN_FILENO);
    dup2(pty.slave, STDOUT_FILENO);
    setenv("TERM", term, 1);
    unsetenv("LINES");
    unsetenv("COLUMNS");
}

/* Everything the program sent, NUL-terminated, in buf; the pty closed and
 * stdin/stdout given back. */
static size_t pty_close(char *buf, size_t n)
{
    fflush(stdout);
    dup2(pty.saved_in, STDIN_FILENO);
    dup2(pty.saved_out, STDOUT_FILENO);
    close(pty.saved_in);
    close(pty.saved_out);
    size_t len = 0;
    ssize_t r;
    while (len + 1 < n && (r = read(pty.master, buf + len, n - 1 - len)) > 0)
        len += (size_t)r;
    buf[len] = 0;
    close(pty.slave);
    close(pty.master);
    return len;
}

/* The last occurrence of needle in hay, or NULL. */
static const char *last_of(const char *hay, const char *needle)
{
    const char *last = NULL;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
        last = p;
    return last;
}

/* ---- a screen that raises a signal or records keys ----------------------- */

static int fake_raise;         /* raised while the first frame is drawn */
static const char *fake_input; /* typed on the pty once the first frame is drawn */
static int fake_keys[64], fake_nkeys, fake_want;

static void fake_draw(Screen *s, const Ui *ui, Canvas *c)
{
    (void)s;
    (void)ui;
    canvas_text(c, 0, 0, "fake screen", ST_NORMAL);
    if (fake_input) {
        ck_assert_int_eq(write(pty.master, fake_input, strlen(fake_input)),
                         (ssize_t)strlen(fake_input));
        fake_input = NULL;
    }
    if (fake_raise) raise(fake_raise);
    fake_raise = 0;
}

static int fake_key(Screen *s, Ui *ui, Action a, int key, Screen **push)
{
    (void)s;
    (void)ui;
    (void)a;
    (void)push;
    if (fake_nkeys < 64) fake_keys[fake_nkeys++] = key;
    return fake_nkeys >= fake_want ? UI_QUIT : 0;
}

static void fake_free(Screen *s)
{
    free(s);
}

static const ScreenOps fake_ops = {.draw = fake_draw, .key = fake_key, .free = fake_free};

static Screen *fake_screen(void)
{
    Screen *s = calloc(1, sizeof *s);
    ck_assert_ptr_nonnull(s);
    s->title = "fake";
    s->ops = &fake_ops;
    return s;
}

/* ---- tests ------------------------------------------------------------------ */

static const int end_sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

/* Signal end_sigs[_i] during a frame: 128 + N, and everything restored. */
START_TEST(test_signal_restores_terminal)
{
    int sig = end_sigs[_i];
    static char out[65536];
    Ui ui;
    memset(&ui, 0, sizeof ui);
    struct sigaction before_sa, after_sa;
    sigaction(sig, NULL, &before_sa);
    sigset_t before_mask, after_mask;
    sigprocmask(SIG_SETMASK, NULL, &before_mask);

    pty_open("xterm-256color");
    fake_raise = sig;
    char err[200];
    int rc = tui_run(&ui, fake_screen(), COLOR_AUTO, 0, err, sizeof err);
    struct termios after;
    ck_assert_int_eq(tcgetattr(pty.slave, &after), 0);
    pty_close(out, sizeof out);

    ck_assert_int_eq(rc, 128 + sig);
    /* tty modes: exactly as before (echo and canonical mode back) */
    ck_assert(after.c_lflag & ECHO);
    ck_assert(after.c_lflag & ICANON);
    ck_assert_int_eq(after.c_lflag, pty.before.c_lflag);
    ck_assert_int_eq(after.c_iflag, pty.before.c_iflag);
    ck_assert_int_eq(after.c_oflag, pty.before.c_oflag);
    ck_assert_int_eq(memcmp(after.c_cc, pty.before.c_cc, sizeof after.c_cc), 0);
    /* the alternate screen was entered and left; the cursor hidden and shown */
    const char *smcup = last_of(out, "\033[?1049h"), *rmcup = last_of(out, "\033[?1049l");
    ck_assert_ptr_nonnull(smcup);
    ck_assert_msg(rmcup && rmcup > smcup, "alternate screen not left after signal %d", sig);
    const char *civis = last_of(out, "\033[?25l"), *cnorm = last_of(out, "\033[?25h");
    ck_assert_ptr_nonnull(civis);
    ck_assert_msg(cnorm && cnorm > civis, "cursor left hidden after signal %d", sig);
    /* the handler and the mask as they were */
    sigaction(sig, NULL, &after_sa);
    ck_assert(after_sa.sa_handler == before_sa.sa_handler);
    sigprocmask(SIG_SETMASK, NULL, &after_mask);
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(sigismember(&after_mask, end_sigs[i]),
                         sigismember(&before_mask, end_sigs[i]));
    ck_assert_int_eq(sigismember(&after_mask, SIGWINCH), sigismember(&before_mask, SIGWINCH));
}
END_TEST

static const char *const key_terms[] = {"xterm-256color", "xterm", "linux", "vt100", "screen"};

/* Every cursor key in both forms, under key_terms[_i]. */
START_TEST(test_csi_and_ss3_keys)
{
    static const struct {
        const char *seq;
        int key;
    } want[] = {
        {"\033[A", UI_K_UP},
        {"\033[B", UI_K_DOWN},
        {"\033[C", UI_K_RIGHT},
        {"\033[D", UI_K_LEFT},
        {"\033[H", UI_K_HOME},
        {"\033[F", UI_K_END},
        {"\033OA", UI_K_UP},
        {"\033OB", UI_K_DOWN},
        {"\033OC", UI_K_RIGHT},
        {"\033OD", UI_K_LEFT},
        {"\033OH", UI_K_HOME},
        {"\033OF", UI_K_END},
        {"\033[1~", UI_K_HOME},
        {"\033[4~", UI_K_END},
        {"\033[5~", UI_K_PGUP},
        {"\033[6~", UI_K_PGDN},
        {"x", 'x'},
    };
    enum { N = sizeof want / sizeof want[0] };
    static char input[256], out[65536];
    input[0] = 0;
    for (int i = 0; i < N; i++)
        strcat(input, want[i].seq);
    Ui ui;
    memset(&ui, 0, sizeof ui);
    pty_open(key_terms[_i]);
    /* Under TERM=linux ncurses' mousemask would load libgpm, whose failed
     * Gpm_Open leaks 10 bytes (tests/lsan.supp; e2e_faults.sh covers that
     * path): keys are what this test is about, so no gpm here. */
    setenv("NCURSES_GPM_TERMS", "none", 1);
    fake_input = input;
    fake_nkeys = 0;
    fake_want = N;
    char err[200];
    int rc = tui_run(&ui, fake_screen(), COLOR_AUTO, 0, err, sizeof err);
    pty_close(out, sizeof out);
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(fake_nkeys, N);
    for (int i = 0; i < N; i++)
        ck_assert_msg(fake_keys[i] == want[i].key, "TERM=%s: key %d (ESC%s) read as %d, not %d",
                      key_terms[_i], i, want[i].seq + 1, fake_keys[i], want[i].key);
}
END_TEST

static Suite *tui_suite(void)
{
    Suite *s = suite_create("tui");
    TCase *tc = tcase_create("pty");
    tcase_set_timeout(tc, 30);
    tcase_add_loop_test(tc, test_signal_restores_terminal, 0, 4);
    tcase_add_loop_test(tc, test_csi_and_ss3_keys, 0,
                        (int)(sizeof key_terms / sizeof key_terms[0]));
    suite_add_tcase(s, tc);
    return s;
}

CHECK_MAIN(tui_suite)
