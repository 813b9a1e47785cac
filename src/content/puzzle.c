/* puzzle.c - the puzzles' table and their checker (puzzle.h). */
#include "content/puzzle.h"

#include "base/errbuf.h"
#include "content/content.h"
#include "engine/mha.h"
#include "engine/tensorops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The puzzles of issue 17, each with a classic wrong answer.  The goal says
 * what the target is; the given tensors and sizes are shown beside it. */
static const Puzzle puzzles[] = {
    {"split_heads",
     "Split Q into heads",
     "Q is (B, S, D), each row a token.  Make (B, H, S, dh): head h of token s is Q's columns "
     "h*dh .. h*dh+dh-1 of row s.",
     {{"Q", "B, S, D"}},
     1,
     "Q.view(B, S, H, dh).transpose(1, 2)",
     "Q.view(B, H, S, dh)",
     0,
     "Look at what your head 0 holds: whose features are in its second row?  In Q's memory "
     "a token's heads sit side by side in its row."},
    {"merge_heads",
     "Merge heads back",
     "O is (B, H, S, dh), heads first.  Make (B, S, D): token s's row is its heads side by "
     "side, head 0 first.",
     {{"O", "B, H, S, dh"}},
     1,
     "O.transpose(1, 2).reshape(B, S, D)",
     "O.reshape(B, S, D)",
     0,
     "A token's heads must end up next to each other: which two dims have to trade places "
     "before the flatten?"},
    {"k_transposed",
     "K transposed per head, no copy",
     "K is (B, S, D).  Make each head's K transposed, (B, H, dh, S), ready for Q @ K^T, without "
     "copying a byte: the strides are checked.",
     {{"K", "B, S, D"}},
     1,
     "K.view(B, S, H, dh).permute(0, 2, 3, 1)",
     "K.view(B, H, dh, S)",
     1,
     "Split the heads as for Q, then put the dims in the order (B, H, dh, S) in one call."},
    {"unpermute",
     "Undo a view without the transpose",
     "w was made by Q.view(B, H, S, dh) from a (B, S, D) Q: silently wrong.  Recover the "
     "correct heads-first Q, (B, H, S, dh).",
     {{"w", "B, H, S, dh"}},
     1,
     "w.view(B, S, H, dh).transpose(1, 2)",
     "w.transpose(1, 2)",
     0,
     "w's memory is still Q's rows, token after token: read it again as (B, S, H, dh)."},
    {"fused_qkv",
     "K heads from a fused QKV, no copy",
     "qkv is (B, S, 3*D): Q, K and V side by side in each row.  Make K's heads, (B, H, S, dh), "
     "without a copy: the strides are checked.",
     {{"qkv", "B, S, 3 * D"}},
     1,
     "qkv[..., D:2 * D].view(B, S, H, dh).transpose(1, 2)",
     "qkv.view(B, S, H, 3 * dh)[..., dh:2 * dh].transpose(1, 2)",
     1,
     "K is the middle D columns of every row; a slice is a view, and so is splitting its last "
     "dim."},
    {"last_query",
     "The last token's queries",
     "Q is (B, H, S, dh).  Keep only the last token's query of every head, keeping the S dim: "
     "(B, H, 1, dh), without a copy.",
     {{"Q", "B, H, S, dh"}},
     1,
     "Q[:, :, -1:]",
     "Q[:, :, -1]",
     1,
     "Compare the shapes: which kind of index keeps the S dim, and which drops it?"},
    {"mqa_expand",
     "MQA: one K head for every query head",
     "k is (B, 1, T, dh), the one key head of multi-query attention.  Make (B, H, T, dh) for "
     "the H query heads without a copy: the strides are checked.",
     {{"k", "B, 1, T, dh"}},
     1,
     "k.expand(B, H, T, dh)",
     "k.repeat(1, H, 1, 1)",
     1,
     "A size-1 dim can be read again and again with stride 0."},
    {"gqa_expand",
     "GQA: each K head for its group, no copy",
     "K is (B, KV, T, dh); each kv head serves G = H/KV query heads.  Make (B, KV, G, T, dh) "
     "where [:, j, g] is kv head j, without a copy: the strides are checked.",
     {{"K", "B, KV, T, dh"}},
     1,
     "K[:, :, None].expand(B, KV, G, T, dh)",
     "K.unsqueeze(2).repeat(1, 1, G, 1, 1)",
     1,
     "Add a size-1 dim for the group first, then make it G long without copying."},
    {"repeat_kv",
     "repeat_kv: K for all H query heads",
     "K is (B, KV, T, dh).  Make (B, H, T, dh) where query head h gets kv head h // G "
     "(transformers' repeat_kv; a copy cannot be avoided).",
     {{"K", "B, KV, T, dh"}},
     1,
     "K.repeat_interleave(G, dim=1)",
     "K.repeat(1, G, 1, 1)",
     0,
     "Heads 0..G-1 share kv head 0: each kv head repeated G times in place, not the whole list "
     "tiled."},
    {"causal_mask",
     "A causal mask",
     "scores is (B, H, S, S).  Make the (S, S) float mask with 1 where query i may see key j "
     "(j <= i) and 0 above the diagonal.",
     {{"scores", "B, H, S, S"}},
     1,
     "torch.ones(S, S).tril()",
     "torch.ones(S, S).triu()",
     0,
     "Row i is query i and column j key j: which cells hold j <= i?"},
    {"kv_append",
     "Append a token to the KV cache",
     "cache is (B, KV, T, dh), k_new is (B, KV, 1, dh): the next token's keys.  Make the cache "
     "after it, (B, KV, T+1, dh), the new token last.",
     {{"cache", "B, KV, T, dh"}, {"k_new", "B, KV, 1, dh"}},
     2,
     "torch.cat((cache, k_new), dim=2)",
     "torch.cat((k_new, cache), dim=2)",
     0,
     "Tokens run along dim 2; the oldest stays first."},
    {"meta_cache",
     "The Meta-layout cache, heads first",
     "cache_k is (B, T_max, KV, dh), Meta's layout (token before head).  Make the keys of the "
     "first T tokens heads first, (B, KV, T, dh), without a copy: the strides are checked.",
     {{"cache_k", "B, T_max, KV, dh"}},
     1,
     "cache_k[:, :T].transpose(1, 2)",
     "cache_k[:, :T].reshape(B, KV, T, dh)",
     1,
     "First cut the tokens you need, then swap the token and head dims."},
    {"rotate_half",
     "rotate_half (RoPE)",
     "x is (B, H, S, dh).  Make rotate_half(x): the second half of the last dim negated, then "
     "the first half: (-x2, x1).",
     {{"x", "B, H, S, dh"}},
     1,
     "torch.cat((-x[..., dh // 2:], x[..., :dh // 2]), dim=-1)",
     "torch.cat((x[..., dh // 2:], -x[..., :dh // 2]), dim=-1)",
     0,
     "Slices of the last dim give the halves; which one carries the minus sign?"},
    {"batch_heads",
     "Heads into the batch for bmm",
     "Q is (B, S, D).  Make (B*H, S, dh) with row b*H + h holding head h of batch b, as a "
     "batched matmul wants it.",
     {{"Q", "B, S, D"}},
     1,
     "Q.view(B, S, H, dh).transpose(1, 2).reshape(B * H, S, dh)",
     "Q.view(B * H, S, dh)",
     0,
     "The same split as for heads first; only then fold B and H together."},
};
#define N_PUZZLES (int)(sizeof puzzles / sizeof puzzles[0])

int puzzle_count(void)
{
    return N_PUZZLES;
}

const Puzzle *puzzle_at(int i)
{
    return i >= 0 && i < N_PUZZLES ? &puzzles[i] : NULL;
}

int puzzle_index(const char *name)
{
    for (int i = 0; i < N_PUZZLES; i++)
        if (!strcmp(puzzles[i].name, name)) return i;
    return -1;
}

const char *const *puzzle_names(void)
{
    static const char *names[N_PUZZLES];
    for (int i = 0; i < N_PUZZLES; i++)
        names[i] = puzzles[i].name;
    return names;
}

/* ---- configurations --------------------------------------------------------------- */

PuzzleSizes puzzle_sizes(const Puzzle *pz, int k)
{
    PuzzleSizes z = {.B = 2, .S = 3, .H = 4, .KV = 2, .dh = 2, .T = 3, .T_max = 5};
    if (k == 0) return z;
    MhaRng r; /* seeded by the puzzle and k: the same configurations on every run */
    mha_rng_seed(&r, (uint32_t)(1000 * (pz - puzzles + 1) + k));
    long G = 2 + (long)(mha_rng_next(&r) % 2);
    z.B = 1 + (long)(mha_rng_next(&r) % 2);
    z.S = 2 + (long)(mha_rng_next(&r) % 4);
    z.KV = 2 + (long)(mha_rng_next(&r) % 2);
    z.H = z.KV * G;
    z.dh = 2 * (1 + (long)(mha_rng_next(&r) % 3));
    z.T = 2 + (long)(mha_rng_next(&r) % 4);
    z.T_max = z.T + 1 + (long)(mha_rng_next(&r) % 3);
    return z;
}

static int uses(const Puzzle *pz, const char *sym)
{
    for (int i = 0; i < pz->ngiven; i++)
        if (strstr(pz->given[i].shape, sym)) return 1;
    return strstr(pz->reference, sym) != NULL;
}

void puzzle_sizes_text(const Puzzle *pz, const PuzzleSizes *z, char *buf, size_t n)
{
    int k = snprintf(buf, n, "B=%ld S=%ld H=%ld KV=%ld G=%ld dh=%ld D=%ld", z->B, z->S, z->H, z->KV,
                     z->H / z->KV, z->dh, z->H * z->dh);
    if (k > 0 && (size_t)k < n && uses(pz, "T"))
        k += snprintf(buf + k, n - (size_t)k, " T=%ld", z->T);
    if (k > 0 && (size_t)k < n && uses(pz, "T_max"))
        snprintf(buf + k, n - (size_t)k, " T_max=%ld", z->T_max);
}

Play *puzzle_play(const Puzzle *pz, const PuzzleSizes *z, char *err, size_t errlen)
{
    Play *p = play_new(NULL);
    if (!p) {
        err_set(err, errlen, "out of memory");
        return NULL;
    }
    p->torch_names = content_pytorch_names();
    const char *const names[] = {"B", "S", "D", "H", "KV", "G", "dh", "T", "T_max"};
    const long vals[] = {z->B,         z->S,  z->H * z->dh, z->H,    z->KV,
                         z->H / z->KV, z->dh, z->T,         z->T_max};
    for (int i = 0; i < 9; i++)
        play_set_int(p, names[i], vals[i]);
    float next = 1; /* distinct values across every given tensor */
    PlayResult r = {0};
    r.error_col = -1;
    for (int i = 0; i < pz->ngiven; i++) {
        char line[160];
        snprintf(line, sizeof line, "%s = torch.zeros(%s)", pz->given[i].name, pz->given[i].shape);
        if (play_eval(p, line, &r) != PR_TENSOR) {
            err_set(err, errlen, "puzzle %s: given %s: %s", pz->name, pz->given[i].name, r.error);
            play_result_clear(&r);
            play_free(p);
            return NULL;
        }
        Storage *st = r.t->st; /* the name's own storage, new and contiguous */
        for (size_t k = 0; k < st->n; k++)
            st->data[k] = next++;
    }
    play_result_clear(&r);
    p->preloaded = p->n;
    return p;
}

/* ---- the checker ---------------------------------------------------------------------- */

static void fmt_long_list(char *buf, size_t n, int count, const long *v)
{
    size_t k = (size_t)snprintf(buf, n, "(");
    for (int i = 0; i < count && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s%ld", i ? ", " : "", v[i]);
    if (k < n) snprintf(buf + k, n - k, count == 1 ? ",)" : ")");
}

static void shape_text(const Tensor *t, char *buf, size_t n)
{
    long v[TENSOR_MAXDIM];
    for (int i = 0; i < t->ndim; i++)
        v[i] = t->shape[i];
    fmt_long_list(buf, n, t->ndim, v);
}

static void strides_text(const Tensor *t, char *buf, size_t n)
{
    long v[TENSOR_MAXDIM];
    for (int i = 0; i < t->ndim; i++)
        v[i] = (long)t->strides[i];
    fmt_long_list(buf, n, t->ndim, v);
}

/* "" when got is the target want, else why not (one phrase). */
static void compare(const Puzzle *pz, const PlayResult *got, const PlayResult *want, char *why,
                    size_t n)
{
    char a[96], b[96];
    const Tensor *g = got->t, *w = want->t;
    why[0] = 0;
    if (got->dtype != want->dtype) {
        snprintf(why, n, "dtype %s, the target is %s", play_dtype_name(got->dtype),
                 play_dtype_name(want->dtype));
        return;
    }
    int same_shape = g->ndim == w->ndim;
    for (int i = 0; same_shape && i < g->ndim; i++)
        same_shape = g->shape[i] == w->shape[i];
    if (!same_shape) {
        shape_text(g, a, sizeof a);
        shape_text(w, b, sizeof b);
        snprintf(why, n, "shape %s, the target is %s", a, b);
        return;
    }
    int same_strides = 1;
    for (int i = 0; i < g->ndim; i++)
        same_strides &= g->shape[i] < 2 || g->strides[i] == w->strides[i];
    if (pz->strides && !same_strides) {
        strides_text(g, a, sizeof a);
        strides_text(w, b, sizeof b);
        snprintf(why, n, "strides %s, the target's are %s (this puzzle checks them: no copy)", a,
                 b);
        return;
    }
    size_t numel = tensorops_numel(g);
    float *x = malloc((numel ? numel : 1) * sizeof *x),
          *y = malloc((numel ? numel : 1) * sizeof *y);
    if (!x || !y) {
        snprintf(why, n, "out of memory");
        free(x);
        free(y);
        return;
    }
    tensor_to_array(g, x);
    tensor_to_array(w, y);
    for (size_t k = 0; k < numel; k++) {
        if (x[k] == y[k]) continue;
        long idx[TENSOR_MAXDIM], rest = (long)k;
        for (int i = g->ndim - 1; i >= 0; i--) {
            idx[i] = rest % g->shape[i];
            rest /= g->shape[i];
        }
        fmt_long_list(a, sizeof a, g->ndim, idx);
        snprintf(why, n, "values differ: at %s it holds %g, the target %g", a, (double)x[k],
                 (double)y[k]);
        break;
    }
    free(x);
    free(y);
}

int puzzle_check(const Puzzle *pz, const char *line, PuzzleCheck *out)
{
    memset(out, 0, sizeof *out);
    out->bytes = out->ref_bytes = -1;
    PlayResult got = {0}, want = {0};
    got.error_col = want.error_col = -1;
    for (int k = 0; k <= PUZZLE_RANDOM; k++) {
        PuzzleSizes z = puzzle_sizes(pz, k);
        char where[160], sizes[120], why[720] = "", err[200];
        int bare = 0; /* why needs no "where": an empty line is empty everywhere */
        puzzle_sizes_text(pz, &z, sizes, sizeof sizes);
        if (k == 0)
            snprintf(where, sizeof where, "the puzzle's tensors (%s)", sizes);
        else
            snprintf(where, sizeof where, "random configuration %d of %d (%s)", k, PUZZLE_RANDOM,
                     sizes);
        Play *mine = puzzle_play(pz, &z, err, sizeof err),
             *ref = puzzle_play(pz, &z, err, sizeof err);
        if (!mine || !ref)
            snprintf(why, sizeof why, "%s", err);
        else if (play_eval(ref, pz->reference, &want) != PR_TENSOR)
            snprintf(why, sizeof why, "the reference failed (a bug in mhaviz): %.640s", want.error);
        else {
            PlayKind kind = play_eval(mine, line, &got);
            if (kind == PR_EMPTY)
                bare = snprintf(why, sizeof why, "an empty line is not an answer");
            else if (kind == PR_ERROR)
                snprintf(why, sizeof why, "it raised: %.640s", got.error);
            else if (kind == PR_VALUE || kind == PR_TUPLE) /* a tuple: its parts summed up */
                snprintf(why, sizeof why, "it is %s, not a tensor", got.value_text);
            else if (got.memory == PM_SAME)
                snprintf(why, sizeof why, "that is the given %s itself: an identity never passes",
                         got.same_as);
            else
                compare(pz, &got, &want, why, sizeof why);
            if (k == 0) {
                out->ref_bytes = (long)want.copied_bytes;
                if (kind == PR_TENSOR) out->bytes = (long)got.copied_bytes;
            }
        }
        play_free(mine);
        play_free(ref);
        if (why[0]) {
            snprintf(out->failed_on, sizeof out->failed_on, "%s%s%s", bare ? "" : where,
                     bare ? "" : ": ", why);
            break;
        }
    }
    play_result_clear(&got);
    play_result_clear(&want);
    out->ok = out->failed_on[0] == 0;
    return out->ok;
}

/* ---- for people and for graders --------------------------------------------------- */

static size_t put_json_str(char *buf, size_t n, size_t k, const char *s)
{
    if (k < n) buf[k++] = '"';
    for (; *s && k + 7 < n; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            k += (size_t)snprintf(buf + k, n - k, "\\%c", c);
        else if (c < 0x20)
            k += (size_t)snprintf(buf + k, n - k, "\\u%04x", c);
        else
            buf[k++] = (char)c;
    }
    if (k < n) buf[k++] = '"';
    if (k < n) buf[k] = 0;
    return k;
}

void puzzle_check_json(const PuzzleCheck *c, long best, char *buf, size_t n)
{
    char a[32] = "null", b[32] = "null";
    if (c->bytes >= 0) snprintf(a, sizeof a, "%ld", c->bytes);
    if (best >= 0) snprintf(b, sizeof b, "%ld", best);
    size_t k = (size_t)snprintf(buf, n,
                                "{\"ok\": %s, \"bytes_copied\": %s, \"best_bytes\": %s, "
                                "\"failed_on\": ",
                                c->ok ? "true" : "false", a, b);
    if (k >= n) return;
    if (c->ok)
        k += (size_t)snprintf(buf + k, n - k, "null");
    else
        k = put_json_str(buf, n, k, c->failed_on);
    if (k < n) snprintf(buf + k, n - k, "}");
}

void puzzle_check_text(const PuzzleCheck *c, long best, char *buf, size_t n)
{
    char b[64] = "";
    if (best >= 0) snprintf(b, sizeof b, "; your best: %ld", best);
    if (!c->ok)
        snprintf(buf, n, "not yet: %s\n", c->failed_on);
    else
        snprintf(buf, n, "solved on %d configurations: %ld bytes copied%s%s\n", PUZZLE_RANDOM + 1,
                 c->bytes,
                 c->bytes == 0             ? " (no copy: the best there is)"
                 : c->bytes > c->ref_bytes ? " (a copy; fewer bytes are possible)"
                                           : " (a copy cannot be avoided here)",
                 b);
}

void puzzle_text(const Puzzle *pz, char *buf, size_t n)
{
    PuzzleSizes z = puzzle_sizes(pz, 0);
    char sizes[160], err[200];
    puzzle_sizes_text(pz, &z, sizes, sizeof sizes);
    size_t k = (size_t)snprintf(buf, n, "Puzzle %s: %s\n%s\ngiven:", pz->name, pz->title, pz->goal);
    Play *p = puzzle_play(pz, &z, err, sizeof err);
    for (int i = 0; i < pz->ngiven && k < n; i++) {
        char sh[96] = "?";
        if (p) {
            const Tensor *t = p->vars[i].t;
            shape_text(t, sh, sizeof sh);
        }
        k += (size_t)snprintf(buf + k, n - k, "%s %s (%s) %s", i ? "," : "", pz->given[i].name,
                              pz->given[i].shape, sh);
    }
    play_free(p);
    if (k < n)
        snprintf(buf + k, n - k,
                 "\nsizes: %s (integer names; the answer is checked on %d other sizes too)\n"
                 "%s\n",
                 sizes, PUZZLE_RANDOM,
                 pz->strides ? "scored on bytes copied; the strides are checked: no copy"
                             : "scored on bytes copied: fewer is better, 0 beats a copy");
}
