/* play.c - the stride playground's screen (mhaviz play, home's Explore).
 *
 * The input line is a text field (ui/field.h: Left/Right, Home/End,
 * Ctrl-A/E/K/U/W, Backspace/Delete, by code point), Up/Down go through the
 * history (kept in the state dir), Tab completes a name or a method.  Enter evaluates the line
 * (engine/play.h) and the result is drawn (draw/play_draw.h); earlier statements stay above it,
 * one line each.  In a puzzle (content/puzzle.h) the goal and the given tensors head the screen and
 * Enter also checks the line as an answer. */
#include "ui/play.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "content/content.h"
#include "content/puzzle.h"
#include "draw/play_draw.h"
#include "engine/play.h"
#include "store/play_history.h"
#include "store/puzzle_best.h"
#include "ui/field.h"
#include "ui/help.h"
#include "ui/screen.h"

#define LOG_MAX 8

typedef struct PlayScreen {
    Play *play;
    LineEdit ed;      /* the statement being typed (base/lineedit.h) */
    PlayHistory hist; /* store/play_history.h: this session's and the saved ones */
    int hpos;         /* hpos == hist.n: the line being typed */
    int save;         /* not --no-save: the history is written after each statement */
    char draft[PLAY_LINE_MAX + 1];
    PlayResult res;
    char stmt[PLAY_LINE_MAX + 1]; /* the statement res is the result of */
    char log[LOG_MAX][256];       /* earlier statements, one line each, newest last */
    int nlog;
    int puzzle;        /* -1: the free playground; else the puzzle's index */
    PuzzleCheck check; /* the verdict on the last answer */
    int checked;       /* check holds one */
    PuzzleBests bests; /* store/puzzle_best.h: loaded once */
} PlayScreen;

static void hist_move(PlayScreen *p, int d)
{
    int to = p->hpos + d;
    if (to < 0 || to > p->hist.n) return;
    if (p->hpos == p->hist.n) snprintf(p->draft, sizeof p->draft, "%s", p->ed.buf);
    p->hpos = to;
    lineedit_set(&p->ed, to == p->hist.n ? p->draft : p->hist.line[to]);
}

static void complete(PlayScreen *p, Ui *ui)
{
    char cand[64][PLAY_NAME_MAX];
    int start, n = play_complete(p->play, p->ed.buf, (int)p->ed.cur, cand, 64, &start);
    if (n == 0) {
        ui_status(ui, "no completion");
        return;
    }
    size_t common = strlen(cand[0]);
    for (int i = 1; i < n; i++) {
        size_t k = 0;
        while (k < common && cand[i][k] == cand[0][k])
            k++;
        common = k;
    }
    int typed = (int)p->ed.cur - start;
    if ((int)common > typed)
        (void)lineedit_insert_text(&p->ed, cand[0] + typed, common - (size_t)typed);
    if (n == 1) return;
    char list[sizeof ui->status];
    size_t k = 0;
    for (int i = 0; i < n && k < sizeof list; i++)
        k += (size_t)snprintf(list + k, sizeof list - k, "%s%.31s", i ? " " : "", cand[i]);
    ui_status(ui, "%s", list);
}

/* One line for the log: "b = x.view(2, 12)   (2, 12) (12, 1) +0 S3 view",
 * "x.view(3)   error: shape '[3]' is invalid ..." (cut at the screen's edge). */
static void log_add(PlayScreen *p)
{
    char *l;
    if (p->res.kind == PR_EMPTY) return;
    if (p->nlog == LOG_MAX) {
        memmove(p->log, p->log + 1, sizeof p->log[0] * (LOG_MAX - 1));
        p->nlog--;
    }
    l = p->log[p->nlog++];
    const PlayResult *r = &p->res;
    if (r->kind == PR_ERROR)
        snprintf(l, sizeof p->log[0], ">>> %.60s   error: %.150s", p->stmt, r->error);
    else if (r->kind == PR_VALUE || r->kind == PR_TUPLE)
        snprintf(l, sizeof p->log[0], ">>> %.60s   %.60s", p->stmt, r->value_text);
    else {
        char sh[48], st[64];
        tensor_fmt_dims(sh, sizeof sh, r->t->ndim, r->t->shape);
        tensor_fmt_strides(st, sizeof st, r->t);
        snprintf(l, sizeof p->log[0], ">>> %.50s   %s %s +%zu S%d %s", p->stmt, sh, st,
                 r->t->offset, r->t->st->id, play_memory_word(r));
    }
}

static void run_line(PlayScreen *p, Ui *ui)
{
    if (p->res.kind != PR_EMPTY) log_add(p);
    snprintf(p->stmt, sizeof p->stmt, "%s", p->ed.buf);
    play_eval(p->play, p->ed.buf, &p->res);
    if (p->puzzle >= 0) { /* the answer, checked on every configuration */
        const Puzzle *pz = puzzle_at(p->puzzle);
        p->checked = 1;
        if (puzzle_check(pz, p->ed.buf, &p->check))
            puzzle_best_record(&p->bests, pz->name, p->check.bytes);
        if (p->bests.warning[0]) {
            ui_status(ui, "%.190s", p->bests.warning);
            p->bests.warning[0] = 0;
        }
    }
    char err[300];
    play_history_add(&p->hist, p->ed.buf);
    if (!ui->no_save && play_history_save(&p->hist, err, sizeof err) != 0)
        ui_status(ui, "history not saved: %.150s", err);
    p->hpos = p->hist.n;
    lineedit_set(&p->ed, "");
}

/* Puzzle index (-1: the free playground, on ui->mha's tensors) in place of
 * what the screen held: a new playground, the log and the verdict cleared,
 * the history kept.  0, or -1 (out of memory: nothing changed). */
static int switch_to(PlayScreen *p, Ui *ui, int index)
{
    char err[200];
    Play *np;
    if (index >= 0) {
        PuzzleSizes z = puzzle_sizes(puzzle_at(index), 0);
        np = puzzle_play(puzzle_at(index), &z, err, sizeof err);
    } else
        np = mha_play_new(ui->mha);
    if (!np) return -1;
    np->torch_names = content_pytorch_names();
    play_free(p->play);
    p->play = np;
    p->puzzle = index;
    p->checked = 0;
    p->nlog = 0;
    play_result_clear(&p->res);
    p->stmt[0] = 0;
    return 0;
}

/* The puzzle's head: title, goal, given, sizes, best; then the verdict.
 * Returns the first row below it. */
static int draw_puzzle(const PlayScreen *p, Canvas *c, int y)
{
    const Puzzle *pz = puzzle_at(p->puzzle);
    PuzzleSizes z = puzzle_sizes(pz, 0);
    char line[400], sizes[160];
    long best = puzzle_best_get(&p->bests, pz->name);
    snprintf(line, sizeof line, "Puzzle %d/%d  %s: %s", p->puzzle + 1, puzzle_count(), pz->name,
             pz->title);
    canvas_text(c, 2, y++, line, ST_BOLD);
    y += canvas_wrap(c, 2, y, c->w - 4, 3, pz->goal, ST_NORMAL);
    size_t k = (size_t)snprintf(line, sizeof line, "given:");
    for (int i = 0; i < pz->ngiven && i < p->play->n && k < sizeof line; i++) {
        char sh[64];
        tensor_fmt_dims(sh, sizeof sh, p->play->vars[i].t->ndim, p->play->vars[i].t->shape);
        k += (size_t)snprintf(line + k, sizeof line - k, "%s %s (%s) %s", i ? "," : "",
                              pz->given[i].name, pz->given[i].shape, sh);
    }
    canvas_text(c, 2, y++, line, ST_CODE);
    puzzle_sizes_text(pz, &z, sizes, sizeof sizes);
    char bests[48] = "not solved yet";
    if (best >= 0) snprintf(bests, sizeof bests, "best: %ld bytes copied", best);
    snprintf(line, sizeof line, "sizes %s  |  %s%s", sizes, bests,
             pz->strides ? "  |  strides checked" : "");
    canvas_text(c, 2, y++, line, ST_DIM);
    if (p->checked) {
        char v[1200];
        puzzle_check_text(&p->check, best, v, sizeof v);
        v[strcspn(v, "\n")] = 0;
        y += canvas_wrap(c, 2, y, c->w - 4, 2, v, p->check.ok ? ST_GOOD : ST_BAD);
        if (!p->check.ok) {
            snprintf(line, sizeof line, "hint: %s", pz->hint);
            y += canvas_wrap(c, 2, y, c->w - 4, 2, line, ST_WARN);
        }
    }
    return y + 1;
}

/* ---- the screen ----------------------------------------------------------------- */

static void play_draw(Screen *s, const Ui *ui, Canvas *c)
{
    PlayScreen *p = s->st;
    if (screen_draw_enlarge(c)) return;
    char cfg[160];
    int tw = canvas_text(
        c, 1, 0, p->puzzle >= 0 ? "Explore: puzzles" : "Explore: the stride playground", ST_TITLE);
    screen_cfg_line(cfg, sizeof cfg, &ui->cfg);
    if (p->puzzle < 0 && tw + 4 + canvas_text_width(cfg) < c->w) /* the config, when it fits */
        canvas_text(c, c->w - 1 - canvas_text_width(cfg), 0, cfg, ST_DIM);
    int y = 2, in_y = c->h - 3, body = in_y - 1 - y;
    int logs = p->nlog < 3 ? p->nlog : 3;
    if (p->puzzle >= 0) {
        y = draw_puzzle(p, c, 2);
        logs = p->nlog && y + 8 < in_y ? 1 : 0; /* the result needs the room */
    } else if (p->res.kind == PR_EMPTY && !p->nlog) {
        canvas_wrap(c, 2, y, c->w - 4, body,
                    "Type a PyTorch statement and press Enter, e.g.  b = torch.arange(24).view(2, "
                    "12)  then  b.t()  or  b.t().view(24)  or  Q_heads.stride().  The pipeline's "
                    "tensors (x, Q, K, V, Q_split, Q_heads, scores, attn, head_out, concat, ...) "
                    "are loaded, and the sizes B, S, D, H, KV, G, dh.  Tab completes names and "
                    "methods.  PgDn: the puzzles, one line each, scored on the bytes copied.",
                    ST_DIM);
    }
    for (int i = 0; i < logs; i++)
        canvas_text(c, 2, y++, p->log[p->nlog - logs + i], ST_DIM);
    if (logs) y++;
    play_draw_result(c, 2, y, c->w - 4, in_y - 1 - y, &p->res, p->stmt);
    /* the input line, scrolled so the cursor shows */
    canvas_text(c, 1, in_y, ">>> ", ST_CODE_HI);
    canvas_field(c, 5, in_y, c->w - 6, p->ed.buf, p->ed.cur, ST_CODE, ' ');
    static const Action picks[] = {ACT_APPLY, ACT_NEXT, ACT_UP, ACT_COMPLETE, ACT_BACK};
    screen_draw_hint(c, ui, KC_PLAY, picks, 5, 2);
}

static int play_key(Screen *s, Ui *ui, Action a, int key, Screen **push)
{
    (void)push; /* opens no screen itself (? is UI_HELP) */
    PlayScreen *p = s->st;
    ui->status[0] = 0;
    switch (a) {
    case ACT_APPLY:
        run_line(p, ui);
        break;
    case ACT_UP:
        hist_move(p, -1);
        break;
    case ACT_DOWN:
        hist_move(p, 1);
        break;
    case ACT_COMPLETE:
        complete(p, ui);
        break;
    case ACT_NEXT: /* the next puzzle; from the free playground the first */
    case ACT_PREV: {
        int to = a == ACT_NEXT ? p->puzzle + 1 : p->puzzle - 1;
        if (to < -1 || to >= puzzle_count() || (a == ACT_PREV && p->puzzle < 0)) return UI_NONE;
        if (switch_to(p, ui, to) < 0) ui_status(ui, "out of memory");
        break;
    }
    case ACT_BACK:
        return UI_BACK;
    default: /* every other printable key types: q and ? act on an empty line only */
        if (p->ed.len == 0 && key == 'q') return UI_BACK;
        if (p->ed.len == 0 && key == '?') return UI_HELP | UI_REDRAW;
        return field_key(&p->ed, a, key); /* the editing keys, a character typed */
    }
    return UI_REDRAW;
}

static void play_screen_free(Screen *s)
{
    PlayScreen *p = s->st;
    if (p) {
        play_free(p->play);
        play_result_clear(&p->res);
        char err[300]; /* a last try for lines a busy lock kept back; no one to tell */
        if (p->save) (void)play_history_save(&p->hist, err, sizeof err);
        play_history_free(&p->hist);
    }
    screen_free(s);
}

static const ScreenOps play_ops = {
    .draw = play_draw,
    .key = play_key,
    .free = play_screen_free,
    .help = KC_PLAY,
    .keys = KC_PLAY,
};

Screen *play_open(Ui *ui)
{
    Screen *s = screen_new(&play_ops, "Explore", sizeof(PlayScreen));
    if (!s) return NULL;
    PlayScreen *p = s->st;
    p->res.error_col = -1;
    p->play = mha_play_new(ui->mha);
    if (!p->play) {
        screen_free(s);
        return NULL;
    }
    p->play->torch_names = content_pytorch_names();
    play_history_load(&p->hist);
    puzzle_best_load(&p->bests, ui->no_save);
    p->save = !ui->no_save;
    p->hpos = p->hist.n;
    lineedit_init(&p->ed, PLAY_LINE_MAX);
    p->puzzle = -1;
    return s;
}

Screen *play_open_puzzle(Ui *ui, int index)
{
    Screen *s = play_open(ui);
    if (s && switch_to(s->st, ui, index) < 0) {
        play_screen_free(s);
        return NULL;
    }
    return s;
}
