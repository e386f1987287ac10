/*
 * kallsyms.c - /proc/kallsyms parsing and lookup (see kallsyms.h).
 * Invariant: syms is sorted by address and every name_off points at a
 * NUL-terminated name inside names.
 */
#include "runner/kallsyms.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"

static int pg_ksym_cmp(const void *a, const void *b)
{
        const struct pg_ksym *x = a, *y = b;

        return x->addr < y->addr ? -1 : x->addr > y->addr;
}

void pg_kallsyms_load(struct pg_kallsyms *k, const char *path)
{
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        char *text = NULL, *p, *end;
        size_t len = 0, cap = 0, scap = 0;
        ssize_t n;

        memset(k, 0, sizeof(*k));
        if (fd < 0)
                return;
        /* /proc files report size 0: read in large chunks until EOF */
        do {
                if (cap - len < (1 << 20)) {
                        cap = cap ? cap * 2 : 8 << 20;
                        text = pg_xrealloc(text, cap + 1);
                }
                n = read(fd, text + len, cap - len);
                if (n > 0)
                        len += (size_t) n;
        } while (n > 0);
        close(fd);
        if (text == NULL)
                return;
        text[len] = '\0';
        /* names are copied into one block no larger than the file */
        k->names = pg_xmalloc(len + 1);
        for (p = text, end = text + len; p < end;) {
                char *nl = memchr(p, '\n', (size_t) (end - p)), *le = nl ? nl : end, *q;
                uint64_t addr = strtoull(p, &q, 16);
                char *name, *ne;

                if (q != p && q + 3 < le && q[0] == ' ' && strchr("tTwW", q[1]) && q[2] == ' ') {
                        name = q + 3;
                        for (ne = name; ne < le && *ne != ' ' && *ne != '\t'; ne++)
                                ;
                        if (ne > name) {
                                if (k->n == scap) {
                                        scap = scap ? scap * 2 : 4096;
                                        k->syms = pg_xreallocarray(k->syms, scap, sizeof(*k->syms));
                                }
                                memcpy(k->names + k->names_len, name, (size_t) (ne - name));
                                k->names[k->names_len + (size_t) (ne - name)] = '\0';
                                k->syms[k->n++] = (struct pg_ksym){ addr, (uint32_t) k->names_len };
                                k->names_len += (size_t) (ne - name) + 1;
                        }
                }
                p = nl ? nl + 1 : end;
        }
        free(text);
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
