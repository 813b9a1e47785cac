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

const char *content_pytorch_names(void)
{
    const ContentFile *f = content_find("assets/pytorch-1.13.names");
    return f ? f->text : NULL;
}
