/* decode.h - the Decode screen: prefill, then one token at a time over a KV
 * cache (engine/decode.h), drawn by draw/decode.c.  Space generates the next
 * token, K cycles MHA / GQA / MQA, L switches the cache layout (HF / Meta). */
#ifndef MHAVIZ_UI_DECODE_H
#define MHAVIZ_UI_DECODE_H

#include "engine/decode.h"
#include "ui/ui.h"

/* A new Decode screen on ui->cfg (the current configuration, made causal),
 * HF's cache layout and a prompt of half the sequence; NULL when out of
 * memory.  A configuration the engine refuses shows its error on the screen. */
Screen *decode_open(Ui *ui);

/* The same with a prompt of `prompt` tokens (0: half the sequence; more than
 * ui->cfg.seq shows the error on the screen) and the cache layout. */
Screen *decode_open_with(Ui *ui, int prompt, DecodeLayout layout);

/* What `mhaviz decode` opens the screen with: the prompt (0: half), the
 * layout, a rolling window of W slots (0: none), paged blocks (0: none) and
 * a shared prefix in the pool (0: none; its x shared by the configuration). */
typedef struct DecodeScreenOpts {
    int prompt;
    DecodeLayout layout;
    int window;
    int block_size; /* paged in blocks of this many tokens; 0: not paged */
    int prefix;     /* paged: the sequences share their first prefix tokens; 0: none */
} DecodeScreenOpts;
Screen *decode_open_opts(Ui *ui, const DecodeScreenOpts *o);

#endif
