/* check_puzzle.c - the puzzles (issue 17): each passes its reference on its
 * own tensors and on PUZZLE_RANDOM >= 5 random configurations, fails on an
 * identity, an empty line and its classic wrong answer, and reports the
 * bytes the engine counted. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "check_main.h"
#include "content/puzzle.h"
#include "engine/mha.h"

START_TEST(at_least_twelve_with_distinct_names)
{
    ck_assert_int_ge(puzzle_count(), 12);
    ck_assert_int_ge(PUZZLE_RANDOM, 5);
    for (int i = 0; i < puzzle_count(); i++) {
        const Puzzle *pz = puzzle_at(i);
        ck_assert_int_eq(puzzle_index(pz->name), i);
        ck_assert(pz->title[0] && pz->goal[0] && pz->hint[0] && pz->ngiven >= 1);
        ck_assert_msg(!strstr(pz->hint, pz->reference), "%s: the hint gives the answer", pz->name);
    }
    ck_assert_ptr_null(puzzle_at(puzzle_count()));
    ck_assert_int_eq(puzzle_index("nope"), -1);
}
END_TEST

/* The random configurations are really other sizes: each differs from the
 * puzzle's own, and not all of them are alike. */
START_TEST(random_configurations_differ)
{
    for (int i = 0; i < puzzle_count(); i++) {
        const Puzzle *pz = puzzle_at(i);
        PuzzleSizes own = puzzle_sizes(pz, 0), first = puzzle_sizes(pz, 1);
        int differ_from_first = 0;
        for (int k = 1; k <= PUZZLE_RANDOM; k++) {
            PuzzleSizes z = puzzle_sizes(pz, k);
            ck_assert_msg(memcmp(&z, &own, sizeof z) != 0, "%s: configuration %d is its own",
                          pz->name, k);
            differ_from_first |= memcmp(&z, &first, sizeof z) != 0;
            ck_assert(z.H % z.KV == 0 && z.H / z.KV >= 2 && z.KV >= 2 && z.dh % 2 == 0);
        }
        ck_assert_msg(differ_from_first, "%s: all random configurations are alike", pz->name);
    }
}
END_TEST

START_TEST(reference_passes_everywhere)
{
    const Puzzle *pz = puzzle_at(_i);
    PuzzleCheck c;
    ck_assert_msg(puzzle_check(pz, pz->reference, &c), "%s: the reference fails: %s", pz->name,
                  c.failed_on);
    ck_assert_str_eq(c.failed_on, "");
    ck_assert_int_eq(c.bytes, c.ref_bytes);
}
END_TEST

START_TEST(identity_empty_and_wrong_fail)
{
    const Puzzle *pz = puzzle_at(_i);
    PuzzleCheck c;
    for (int g = 0; g < pz->ngiven; g++) {
        ck_assert_msg(!puzzle_check(pz, pz->given[g].name, &c), "%s: the identity %s passes",
                      pz->name, pz->given[g].name);
        ck_assert_msg(strstr(c.failed_on, "identity never passes"), "%s: %s", pz->name,
                      c.failed_on);
        char line[64]; /* a copy of the given is no answer either */
        snprintf(line, sizeof line, "%s.clone()", pz->given[g].name);
        ck_assert_msg(!puzzle_check(pz, line, &c), "%s: %s passes", pz->name, line);
    }
    char tuple[64]; /* a tuple of tensors is not one tensor (it crashed the check) */
    snprintf(tuple, sizeof tuple, "%s.chunk(1)", pz->given[0].name);
    ck_assert(!puzzle_check(pz, tuple, &c));
    ck_assert_msg(strstr(c.failed_on, "not a tensor"), "%s: %s", pz->name, c.failed_on);
    ck_assert(!puzzle_check(pz, "", &c));
    ck_assert_str_eq(c.failed_on, "an empty line is not an answer");
    ck_assert(!puzzle_check(pz, "   # nothing", &c));
    ck_assert_msg(!puzzle_check(pz, pz->wrong, &c), "%s: the wrong answer %s passes", pz->name,
                  pz->wrong);
    ck_assert_msg(c.failed_on[0], "%s: no reason given", pz->name);
}
END_TEST

/* The bytes reported are the engine's: the copy counter of the storage the
 * reference wrote (0 for a view), and for the two a pipeline run also makes,
 * the run's own count. */
START_TEST(bytes_are_the_engines_count)
{
    char err[200];
    for (int i = 0; i < puzzle_count(); i++) {
        const Puzzle *pz = puzzle_at(i);
        PuzzleSizes z = puzzle_sizes(pz, 0);
        Play *p = puzzle_play(pz, &z, err, sizeof err);
        ck_assert_ptr_nonnull(p);
        PlayResult r = {0};
        r.error_col = -1;
        ck_assert_int_eq(play_eval(p, pz->reference, &r), PR_TENSOR);
        size_t engine = r.memory == PM_VIEW ? 0 : r.t->st->bytes_copied;
        if (!strcmp(pz->name, "rotate_half")) /* -x2 is a storage of its own: half of x */
            engine += r.t->st->bytes_copied / 2;
        PuzzleCheck c;
        puzzle_check(pz, pz->reference, &c);
        ck_assert_msg((size_t)c.bytes == engine, "%s: %ld bytes reported, the engine counted %zu",
                      pz->name, c.bytes, engine);
        ck_assert_msg(pz->strides ? c.bytes == 0 : 1, "%s: a no-copy puzzle copies", pz->name);
        play_result_clear(&r);
        play_free(p);
    }
    /* merge_heads is step 8's copy; repeat_kv is the run's K_repeat */
    PuzzleSizes z = puzzle_sizes(puzzle_at(puzzle_index("merge_heads")), 0);
    MhaConfig cfg = {.batch = (int)z.B,
                     .seq = (int)z.S,
                     .d_model = (int)(z.H * z.dh),
                     .heads = (int)z.H,
                     .kv_heads = (int)z.KV,
                     .seed = 1};
    Mha *m = mha_run(&cfg, err, sizeof err);
    ck_assert_ptr_nonnull(m);
    PuzzleCheck c;
    puzzle_check(puzzle_at(puzzle_index("merge_heads")),
                 "O.transpose(1, 2).contiguous().view(B, S, D)", &c);
    ck_assert(c.ok);
    ck_assert_int_eq(c.bytes, (long)m->steps[MS_CONTIG].bytes_copied);
    ck_assert_int_eq(z.T, z.S); /* the cache holds the run's S tokens */
    puzzle_check(puzzle_at(puzzle_index("repeat_kv")), "K.repeat_interleave(G, dim=1)", &c);
    ck_assert(c.ok);
    ck_assert_int_eq(c.bytes, (long)m->t[MT_K_REPEAT]->st->bytes_copied);
    mha_free(m);
}
END_TEST

/* Other right answers pass too, a view beats a copy, and literal numbers of
 * the puzzle's own sizes fail on the random ones. */
START_TEST(other_answers_and_scores)
{
    PuzzleCheck c;
    const Puzzle *split = puzzle_at(puzzle_index("split_heads"));
    ck_assert(puzzle_check(split, "Q.view(B, S, H, dh).transpose(1, 2)", &c));
    ck_assert_int_eq(c.bytes, 0);
    ck_assert(puzzle_check(split, "q = Q.unflatten(-1, (H, dh)).permute(0, 2, 1, 3)", &c));
    ck_assert(puzzle_check(split, "Q.view(B, S, H, dh).transpose(1, 2).contiguous()", &c));
    ck_assert_int_eq(c.bytes, 2 * 3 * 8 * 4); /* a copy: passes, scores worse */
    ck_assert(!puzzle_check(split, "Q.view(2, 3, 4, 2).transpose(1, 2)", &c));
    ck_assert_msg(strstr(c.failed_on, "random configuration 1 of 5"), "%s", c.failed_on);
    ck_assert(!puzzle_check(split, "Q.view(B, S, H, dh).transpose(1, 2).contiguous", &c));
    const Puzzle *kt = puzzle_at(puzzle_index("k_transposed"));
    ck_assert(!puzzle_check(kt, "K.view(B, S, H, dh).permute(0, 2, 3, 1).contiguous()", &c));
    ck_assert_msg(strstr(c.failed_on, "this puzzle checks them: no copy"), "%s", c.failed_on);
    const Puzzle *fused = puzzle_at(puzzle_index("fused_qkv"));
    ck_assert(puzzle_check(fused, "qkv.view(B, S, 3, H, dh)[:, :, 1].transpose(1, 2)", &c));
    const Puzzle *rkv = puzzle_at(puzzle_index("repeat_kv"));
    ck_assert(puzzle_check(rkv, "K[:, :, None].expand(B, KV, G, T, dh).reshape(B, H, T, dh)", &c));
    const Puzzle *mask = puzzle_at(puzzle_index("causal_mask"));
    ck_assert(!puzzle_check(mask, "torch.arange(S * S).view(S, S)", &c)); /* int64 */
    ck_assert_msg(strstr(c.failed_on, "dtype torch.int64, the target is torch.float32"), "%s",
                  c.failed_on);
    ck_assert(!puzzle_check(split, "Q.shape", &c));
    ck_assert_msg(strstr(c.failed_on, "not a tensor"), "%s", c.failed_on);
}
END_TEST

static Suite *puzzle_suite(void)
{
    Suite *s = suite_create("puzzle");
    TCase *t = tcase_create("puzzles");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, at_least_twelve_with_distinct_names);
    tcase_add_test(t, random_configurations_differ);
    tcase_add_loop_test(t, reference_passes_everywhere, 0, puzzle_count());
    tcase_add_loop_test(t, identity_empty_and_wrong_fail, 0, puzzle_count());
    tcase_add_test(t, bytes_are_the_engines_count);
    tcase_add_test(t, other_answers_and_scores);
    suite_add_tcase(s, t);
    return s;
}

CHECK_MAIN(puzzle_suite)
