/*
 * demangle.c - version-suffix stripping, libiberty demangling and parameter
 * list removal (see demangle.h). Invariant: the output never contains the
 * '@' version suffix of the input; parentheses that belong to a name
 * ("(anonymous namespace)", "operator()", "{lambda(int)#1}") are kept.
 */
#include "runner/demangle.h"

#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

/* Length of @s without the parameter list that follows the function name. */
static size_t pg_name_without_params(const char *s, size_t len)
{
        int angle = 0, brace = 0, square = 0;

        for (size_t i = 0; i < len; i++) {
                char c = s[i];

                if (c == '<')
                        angle++;
                else if (c == '>' && angle > 0)
                        angle--;
                else if (c == '{')
                        brace++;
                else if (c == '}' && brace > 0)
                        brace--;
                else if (c == '[')
                        square++;
                else if (c == ']' && square > 0)
                        square--;
                else if (c == '(' && angle == 0 && brace == 0 && square == 0) {
                        static const char anon[] = "(anonymous namespace)";

                        if (len - i >= sizeof(anon) - 1 &&
                            memcmp(s + i, anon, sizeof(anon) - 1) == 0) {
                                i += sizeof(anon) - 2;
                                continue;
                        }
                        if (i >= 8 && memcmp(s + i - 8, "operator", 8) == 0 && i + 1 < len &&
                            s[i + 1] == ')') {
                                i++; /* operator() */
                                continue;
                        }
                        return i;
                }
        }
        return len;
}

void pg_demangle(struct pg_buf *out, const char *sym)
{
        const char *at = strchr(sym, '@');
        size_t len = at ? (size_t) (at - sym) : strlen(sym);
        char local[256], *name = local, *dm = NULL;

        if (len == 0 && at != NULL) { /* "@plt"-like oddities: keep as is */
                pg_buf_puts(out, sym);
                return;
        }
        if (sym[0] != '_' || len < 3 || (sym[1] != 'Z' && sym[1] != 'R')) {
                pg_buf_add(out, sym, len);
                return;
        }
        if (len >= sizeof(local))
                name = malloc(len + 1);
        if (name == NULL) {
                pg_buf_add(out, sym, len);
                return;
        }
        memcpy(name, sym, len);
        name[len] = '\0';
        dm = cplus_demangle(name, DMGL_AUTO | DMGL_PARAMS | DMGL_ANSI);
        if (dm != NULL)
                pg_buf_add(out, dm, pg_name_without_params(dm, strlen(dm)));
        else
                pg_buf_add(out, name, len);
        free(dm);
        if (name != local)
                free(name);
}
