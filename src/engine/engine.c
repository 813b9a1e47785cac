/* engine.c - see engine.h. */
#include "engine/engine.h"

#include <stdlib.h>

Engine *engine_new(const Engine *after)
{
    Engine *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    e->refs = 1;
    e->next_id = after ? after->next_id : 1;
    return e;
}

void engine_retain(Engine *e)
{
    e->refs++;
}

void engine_release(Engine *e)
{
    if (e && --e->refs == 0) free(e);
}

int engine_has_room(const Engine *e, size_t n)
{
    if (e->max_storage && n > (size_t)e->max_storage) return 0;
    return !e->budget || (e->live <= e->budget && n * sizeof(float) <= e->budget - e->live);
}
