/* rope.c - rotary position embedding: the two layouts, one formula.
 *
 * Checked at the sources (2026-12):
 *   huggingface/transformers src/transformers/models/llama/modeling_llama.py:
 *     rotate_half(x) = cat((-x[..., dh//2:], x[..., :dh//2]), dim=-1) and
 *     q_embed = q * cos + rotate_half(q) * sin, cos/sin of cat((freqs, freqs)):
 *     float i is paired with float i + dh/2 (GPT-NeoX's layout).
 *   meta-llama/llama llama/model.py apply_rotary_emb: view_as_complex(
 *     xq.float().reshape(*xq.shape[:-1], -1, 2)) * freqs_cis: floats 2i and
 *     2i+1 are one complex number, turned by polar(1, p * freqs[i]).
 *   both: freqs = 1 / theta ** (arange(0, dh, 2).float() / dh).
 */
#include "engine/rope.h"

#include "base/errbuf.h"

#include <math.h>
#include <string.h>

static const char *const layout_names[ROPE_LAYOUTS] = {"off", "half", "interleaved"};

const char *rope_layout_name(RopeLayout l)
{
    return l >= 0 && l < ROPE_LAYOUTS ? layout_names[l] : "off";
}

int rope_layout_of(const char *name)
{
    for (int l = ROPE_HALF; l < ROPE_LAYOUTS; l++)
        if (!strcmp(name, layout_names[l])) return l;
    return -1;
}

float rope_inv_freq(int i, int dh, double theta)
{
    float e = (float)(2 * i) / (float)dh; /* arange(0, dh, 2).float() / dh */
    return 1.0f / (float)pow(theta, (double)e);
}

float rope_angle(int pos, int i, int dh, double theta)
{
    return (float)pos * rope_inv_freq(i, dh, theta); /* outer(t, inv_freq) */
}

Tensor *rope_table(Engine *eng, int seq, int dh, RopeLayout l, double theta, int sine)
{
    if (seq < 1 || dh < 2 || dh % 2 || (l != ROPE_HALF && l != ROPE_INTERLEAVED)) return NULL;
    Tensor *t = tensor_zeros(eng, 2, (int[]){seq, dh});
    for (int p = 0; t && p < seq; p++)
        for (int j = 0; j < dh; j++) {
            float a = rope_angle(p, rope_pair_of(l, j, dh), dh, theta);
            t->st->data[(size_t)p * (size_t)dh + (size_t)j] = sine ? sinf(a) : cosf(a);
        }
    return t;
}

int rope_pair_of(RopeLayout l, int j, int dh)
{
    return l == ROPE_INTERLEAVED ? j / 2 : j % (dh / 2);
}

int rope_partner(RopeLayout l, int j, int dh)
{
    if (l == ROPE_INTERLEAVED) return j ^ 1;
    return j < dh / 2 ? j + dh / 2 : j - dh / 2;
}

/* Pair i's two floats: a (the one that gets - sin) and b. */
static void pair_at(RopeLayout l, int i, int dh, int *a, int *b)
{
    *a = l == ROPE_INTERLEAVED ? 2 * i : i;
    *b = l == ROPE_INTERLEAVED ? 2 * i + 1 : i + dh / 2;
}

/* out = v rotated; v and out may be the same buffer; stride between floats. */
static void rotate_into(const float *v, long vs, float *out, int dh, int pos, RopeLayout l,
                        double theta)
{
    for (int i = 0; i < dh / 2; i++) {
        int a, b;
        pair_at(l, i, dh, &a, &b);
        float ang = rope_angle(pos, i, dh, theta);
        float c = cosf(ang), s = sinf(ang);
        float xa = v[a * vs], xb = v[b * vs];
        out[a] = xa * c - xb * s;
        out[b] = xb * c + xa * s;
    }
}

void rope_rotate(float *v, int dh, int pos, RopeLayout l, double theta)
{
    rotate_into(v, 1, v, dh, pos, l, theta);
}

Tensor *rope_apply(const Tensor *x, RopeLayout l, double theta, char *err, size_t errlen)
{
    if (x->ndim < 2 || x->shape[x->ndim - 1] % 2 || (l != ROPE_HALF && l != ROPE_INTERLEAVED)) {
        err_set(err, errlen, "rope: needs (..., S, dh) with an even dh and a layout");
        return NULL;
    }
    int nd = x->ndim, dh = x->shape[nd - 1];
    Tensor *out = tensor_zeros(x->st->eng, nd, x->shape);
    if (!out) {
        err_set(err, errlen, "out of memory");
        return NULL;
    }
    /* one head row at a time: idx walks the leading dims and the position */
    size_t rows = tensor_numel(x) / (size_t)dh;
    int idx[TENSOR_MAXDIM] = {0};
    for (size_t r = 0; r < rows; r++) {
        size_t k = r;
        for (int d = nd - 2; d >= 0; d--) {
            idx[d] = (int)(k % (size_t)x->shape[d]);
            k /= (size_t)x->shape[d];
        }
        idx[nd - 1] = 0;
        const float *v = x->st->data + tensor_offset_of(x, idx);
        rotate_into(v, x->strides[nd - 1], out->st->data + r * (size_t)dh, dh, idx[nd - 2], l,
                    theta);
    }
    tensor_count_copy(out, out->st->n);
    return out;
}
