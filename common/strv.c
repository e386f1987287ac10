/*
 * strv.c - NULL-terminated vectors of heap strings (strv.h).
 */
#include "common/strv.h"

#include <stdlib.h>

#include "common/buf.h"

char **pg_strv_dup(char *const *v, size_t n)
{
        char **out = pg_xcalloc(n + 1, sizeof(char *));
        for (size_t i = 0; i < n; i++)
                out[i] = pg_xstrdup(v[i]);
        return out;
}

void pg_strv_free(char **v)
{
        for (char **p = v; p && *p; p++)
                free(*p);
        free(v);
}
