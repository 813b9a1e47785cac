/* content_find.c - lookup in the compiled-in content table.  (Not src/content.c:
 * the Makefile builds the generated .build/content.c into .build/content.o.) */
#include "content/content.h"

#include <string.h>

const ContentFile *content_find(const char *path)
{
    if (!path) return NULL;
    for (const ContentFile *f = content_files; f->path; f++)
        if (strcmp(f->path, path) == 0) return f;
    return NULL;
}
