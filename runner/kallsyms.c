/*
 * kallsyms.c - /proc/kallsyms parsing and lookup (see kallsyms.h).
 * Invariant: syms is sorted by address and every name_off points at a
 * NUL-terminated name inside names.
 */
#include "runner/kallsyms.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

static int pg_ksym_cmp(const void *a, const void *b)
{
        const struct pg_ksym *x = a, *y = b;

        return x->addr < y->addr ? -1 : x->addr > y->addr;
}

void pg_kallsyms_load(struct pg_kallsyms *k, const char *path)
{
        FILE *f = fopen(path, "re");
        char line[512];
        size_t cap = 0, ncap = 0;

        memset(k, 0, sizeof(*k));
        if (f == NULL)
                return;
        while (fgets(line, sizeof(line), f)) {
                char *end, *name, *nl;
                uint64_t addr = strtoull(line, &end, 16);
                size_t len;

                if (end == line || end[0] != ' ' || strchr("tTwW", end[1]) == NULL ||
                    end[1] == '\0' || end[2] != ' ')
                        continue;
                name = end + 3;
                nl = strpbrk(name, " \t\n");
                len = nl ? (size_t) (nl - name) : strlen(name);
                if (len == 0)
                        continue;
                if (k->n == cap) {
                        cap = cap ? cap * 2 : 4096;
                        k->syms = pg_xreallocarray(k->syms, cap, sizeof(*k->syms));
                }
                if (k->names_len + len + 1 > ncap) {
                        ncap = ncap ? ncap * 2 : 1 << 16;
                        while (k->names_len + len + 1 > ncap)
                                ncap *= 2;
                        k->names = pg_xrealloc(k->names, ncap);
                }
                memcpy(k->names + k->names_len, name, len);
                k->names[k->names_len + len] = '\0';
                k->syms[k->n++] = (struct pg_ksym){ addr, (uint32_t) k->names_len };
                k->names_len += len + 1;
        }
        fclose(f);
        if (k->n)
                qsort(k->syms, k->n, sizeof(*k->syms), pg_ksym_cmp);
}

void pg_kallsyms_release(struct pg_kallsyms *k)
{
        free(k->syms);
        free(k->names);
        memset(k, 0, sizeof(*k));
}

bool pg_kallsyms_visible(const struct pg_kallsyms *k)
{
        return k->n > 0 && k->syms[k->n - 1].addr != 0;
}

const char *pg_kallsyms_lookup(const struct pg_kallsyms *k, uint64_t addr)
{
        size_t lo = 0, hi = k->n;

        if (!pg_kallsyms_visible(k) || addr < k->syms[0].addr)
                return NULL;
        while (hi - lo > 1) { /* invariant: syms[lo].addr <= addr */
                size_t mid = lo + (hi - lo) / 2;

                if (k->syms[mid].addr <= addr)
                        lo = mid;
                else
                        hi = mid;
        }
        return k->names + k->syms[lo].name_off;
}
