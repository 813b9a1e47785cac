/* decode.h - the Decode screen: prefill, then one token at a time over a KV
 * cache (engine/decode.h), drawn by draw/decode.c.  Space generates the next
 * token, K cycles MHA / GQA / MQA, L switches the cache layout (HF / Meta). */
#ifndef MHAVIZ_UI_DECODE_H
#define MHAVIZ_UI_DECODE_H

#include "ui/ui.h"

/* A new Decode screen on ui's seed (its own toy sizes: 8 tokens, 4 query
 * heads, a 3-token prompt); NULL when out of memory. */
Screen *decode_open(Ui *ui);

#endif
