/* play_names.c - a playground session: its engine, its names (tensors and
 * the integer sizes), which names share a storage, and the bytes its own
 * storages hold. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/play_val.h"

PlayVar *play_var(const Play *p, const char *name)
{
    for (int i = 0; i < p->n; i++)
        if (!strcmp(p->vars[i].name, name)) return (PlayVar *)&p->vars[i];
    return NULL;
}

/* Binds name to t (takes t); replaces an existing binding. */
int play_var_set(Play *p, const char *name, Tensor *t, PlayDtype dt)
{
    PlayVar *v = play_var(p, name);
    if (!v) {
        if (p->n >= PLAY_MAX_VARS) return -1;
        v = &p->vars[p->n++];
        snprintf(v->name, sizeof v->name, "%s", name);
    } else
        tensor_free(v->t);
    v->t = t;
    v->dtype = dt;
    return 0;
}

int play_set_int(Play *p, const char *name, long v)
{
    int i = 0;
    while (i < p->nints && strcmp(p->ints[i].name, name))
        i++;
    if (strlen(name) >= PLAY_NAME_MAX || (i == p->nints && p->nints >= PLAY_MAX_INTS)) return -1;
    if (i == p->nints) snprintf(p->ints[p->nints++].name, PLAY_NAME_MAX, "%s", name);
    p->ints[i].v = v;
    return 0;
}

int play_set_tensor(Play *p, const char *name, Tensor *t, PlayDtype dt)
{
    if (strlen(name) >= PLAY_NAME_MAX || play_var_set(p, name, t, dt) < 0) {
        tensor_free(t);
        return -1;
    }
    return 0;
}

const long *play_int(const Play *p, const char *name)
{
    for (int i = 0; i < p->nints; i++)
        if (!strcmp(p->ints[i].name, name)) return &p->ints[i].v;
    return NULL;
}

Play *play_new(const Engine *after)
{
    Play *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    if (!(p->eng = engine_new(after))) {
        free(p);
        return NULL;
    }
    p->eng->budget = (size_t)PLAY_BUDGET_MB << 20;
    p->eng->max_storage = TENSOROPS_MAX_STORAGE;
    return p;
}

Play *play_new_in(Engine *e)
{
    Play *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    engine_retain(e);
    p->eng = e;
    return p;
}

void play_free(Play *p)
{
    if (!p) return;
    for (int i = 0; i < p->n; i++)
        tensor_free(p->vars[i].t);
    engine_release(p->eng);
    free(p);
}

void play_shares(const Play *p, const Tensor *t, const char *skip, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = 0;
    for (int i = 0; i < p->n && k < n; i++) {
        if (p->vars[i].t->st != t->st || (skip && !strcmp(skip, p->vars[i].name))) continue;
        k += (size_t)snprintf(buf + k, n - k, "%s%s", k ? ", " : "", p->vars[i].name);
    }
}

static int cmp_ptr(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t) * (const Storage *const *)a,
              y = (uintptr_t) * (const Storage *const *)b;
    return x < y ? -1 : x > y;
}

size_t play_live_bytes(const Play *p)
{
    const Storage **st = malloc(((size_t)p->n + 1) * sizeof *st); /* no static: one Play a thread */
    size_t bytes = 0;
    if (!st) return 0;
    for (int i = 0; i < p->n; i++)
        st[i] = p->vars[i].t->st;
    qsort(st, (size_t)p->n, sizeof *st, cmp_ptr);
    for (int i = 0; i < p->n; i++)
        if (i == 0 || st[i] != st[i - 1]) bytes += st[i]->n * sizeof *st[i]->data;
    free(st);
    return bytes;
}
