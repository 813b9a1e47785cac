#!/usr/bin/env bash
# e2e_precision.sh - claims about PyTorch, Hugging Face, flash-attn and llm.c
# that the lessons and quiz banks make, as the built binary shows them (issue
# 15, item 16).  Each says what was checked and where; an old wording that
# was wrong must be gone.  Facts checked against PyTorch 1.13 (Debian's
# python3-torch: its profiler and its torch/nn/functional.py and
# modules/activation.py), PyTorch PR #93234 (v2.0's packed in-projection),
# transformers integrations/sdpa_attention.py (use_gqa_in_sdpa), flash-attn's
# flash_attn_func docstring and llm.c train_gpt2.c attention_forward.
. "$(dirname "$0")/e2e_lib.sh"

# lesson_has N TEXT: lesson N's pages, as printed, hold TEXT (lines joined)
lesson_text() { "$BIN" lesson --frames "$1" | sed 's/^ *//' | tr '\n' ' ' | tr -s ' '; }
lesson_has() { lesson_text "$1" | grep -qF -- "$2"; }
# bank_has FILE TEXT: the quiz bank, as quiz --check reads it, holds TEXT
bank_has() { tr '\n' ' ' <"lessons/$1" | tr -s ' ' | grep -qF -- "$2"; }

check "lesson 5: eager matmul copies when B > 1 and S > 1" \
    lesson_has 5 "when B > 1 and S > 1 (PyTorch 1.13's profiler: two aten::clone/copy_ at B=2, S=4; none at B=2, S=1"
check "lesson 5: no longer 'when the batch holds more than one sequence'" \
    not lesson_has 5 "when the batch holds more than one sequence"
check "lesson 5: 1.13 chunks views and copies at q.contiguous().view" \
    lesson_has 5 "PyTorch 1.13: chunk(3, dim=-1) splits q, k, v as views; the copies come at q.contiguous().view(tgt_len, bsz*num_heads, head_dim)"
check "lesson 5: the packed .contiguous() is PyTorch >= 2.0" \
    lesson_has 5 "PyTorch >= 2.0 on the self-attention path"
for c in "self-attention (query, key and value the same tensor)" "3-D batched input" \
    "dropout 0" "no attn_mask" "an even number of heads" "autocast off"; do
    check "lesson 5: fast-path condition '$c'" lesson_has 5 "$c"
done
check "lesson 5: corrects 'the layout every attention kernel expects'" \
    lesson_has 5 "It is not: - flash-attn's flash_attn_func takes q, k, v as (B, S, H, dh)"
check "lesson 5: SDPA accepts strided views" lesson_has 5 "accepts strided views"

check "lesson 4: same FLOPs only for the matmuls" lesson_has 4 "The matmuls cost the same"
check "lesson 4: the scores are H times one big head's" \
    lesson_has 4 "(1, 2, 4, 4), (B, H, S, S), is H times one big head's (1, 1, 4, 4), and softmax takes H times the exps"
check "lesson 4: no longer 'Cost and parameters are the same'" \
    not lesson_has 4 "Cost and parameters are the same"

check "lesson 3: llm.c reads the packed (B, T, 3C) qkv buffer" \
    lesson_has 3 "packed (B, T, 3C) qkv buffer its one projection wrote, so a token's row is 3C floats (3 x 8 here)"
check "lesson 3: no longer 'It keeps Q as (B, S, D)'" not lesson_has 3 "It keeps Q as (B, S, D)"

for n in 6 8; do
    check "lesson $n: repeat_kv copies on eager and on SDPA before torch 2.5 or with a mask" \
        lesson_has $n "on SDPA before torch 2.5 or with a mask"
    check "lesson $n: SDPA with enable_gqa and flash_attention_2 never repeat" \
        lesson_has $n "flash_attention_2"
done
check "lesson 6: no longer 'repeat_kv makes such a copy at every step, but'" \
    not lesson_has 6 "Llama's repeat_kv makes such a copy at every step, but"
check "lesson 8: a step reads one row of the input embedding" \
    lesson_has 8 "all but the input embedding, of which it reads one row"
check "lesson 8: 208 tokens/s and 64 sequences on an H100 SXM" \
    lesson_has 8 "at most 208 tokens/s for one sequence at 8192 tokens, and 64 sequences fit"

check "code.quiz: fill_, zero_ and setitem write through an expand in 1.13" \
    bank_has code.quiz "fill_, zero_ and e[0, 0] = 5 succeed on an expanded tensor and change every element aliased"
check "code.quiz: add_, mul_ and copy_ raise" bank_has code.quiz "add_, mul_ and copy_ raise"
check "code.quiz: flash_attn_func takes (B, S, H, d_head)" \
    bank_has code.quiz "@q flash-attn's flash_attn_func(q, k, v) takes q shaped: a) (B, S, H, d_head)"
check "concepts.quiz: same matmul work, H times the scores" \
    bank_has concepts.quiz "the (B, H, S, S) scores and weights are H times one big head's"
quiet() { "$@" >/dev/null; }
check "the banks still check" quiet "$BIN" quiz --check lessons/code.quiz lessons/concepts.quiz
check "the lessons still check" quiet "$BIN" lesson --check

finish
