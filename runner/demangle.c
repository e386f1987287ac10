/*
 * demangle.c - version-suffix stripping and libiberty demangling (see
 * demangle.h). Invariant: the output never contains the '@' version suffix
 * of the input; parentheses that belong to a name ("(anonymous namespace)",
 * "operator()", "{lambda(int)#1}") are kept.
 */
#include "runner/demangle.h"

#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

static void pg_demangle_flags(struct pg_buf *out, const char *sym, int flags)
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
        /* without DMGL_PARAMS libiberty prints neither the parameter list
         * nor the return type of a template function, and drops the legacy
         * Rust "::h<16 hex>" hash (DMGL_VERBOSE keeps it) */
        dm = cplus_demangle(name, flags);
        if (dm != NULL)
                pg_buf_puts(out, dm);
        else
                pg_buf_add(out, name, len);
        free(dm);
        if (name != local)
                free(name);
}

static bool pg_is_hex_digit(char c)
{
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

bool pg_demangle_is_rust(const char *sym, size_t len)
{
        const char *dot;

        if (len >= 3 && sym[0] == '_' && sym[1] == 'R')
                return sym[2] >= 'A' && sym[2] <= 'Z';
        if (len < 3 + 20 || memcmp(sym, "_ZN", 3) != 0)
                return false;
        dot = memchr(sym, '.', len); /* "_ZN...E.llvm.1234" */
        if (dot != NULL)
                len = (size_t) (dot - sym);
        if (len < 3 + 20 || sym[len - 1] != 'E' || memcmp(sym + len - 20, "17h", 3) != 0)
                return false;
        for (size_t i = len - 17; i < len - 1; i++)
                if (!pg_is_hex_digit(sym[i]))
                        return false;
        return true;
}

void pg_demangle(struct pg_buf *out, const char *sym)
{
        pg_demangle_flags(out, sym, DMGL_AUTO);
}

void pg_demangle_signature(struct pg_buf *out, const char *sym)
{
        pg_demangle_flags(out, sym, DMGL_AUTO | DMGL_PARAMS);
}
