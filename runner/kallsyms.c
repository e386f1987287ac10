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

/* Hex digit values, -1 for other bytes. */
static int pg_hexval(unsigned char c)
{
        if (c >= '0' && c <= '9')
                return c - '0';
        c |= 0x20;
        return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Merge sorted @a[0..na) and @b[0..nb) into @out; on equal addresses @a's
 * entries (earlier in the file) come first, as a stable sort keeps them. */
static void pg_ksym_merge(const struct pg_ksym *a, size_t na, const struct pg_ksym *b, size_t nb,
                          struct pg_ksym *out)
{
        size_t i = 0, j = 0, k = 0;

        while (i < na && j < nb)
                out[k++] = b[j].addr < a[i].addr ? b[j++] : a[i++];
        while (i < na)
                out[k++] = a[i++];
        while (j < nb)
                out[k++] = b[j++];
}

/* Stable merge sort of @v[0..n) by address, @tmp: n entries of scratch. */
static void pg_ksym_sort(struct pg_ksym *v, size_t n, struct pg_ksym *tmp)
{
        size_t h = n / 2;

        if (n < 2)
                return;
        pg_ksym_sort(v, h, tmp);
        pg_ksym_sort(v + h, n - h, tmp);
        if (v[h - 1].addr <= v[h].addr)
                return; /* already in order (the usual case: the kernel lists its own
                           symbols by address, then each module's) */
        memcpy(tmp, v, n * sizeof(*v));
        pg_ksym_merge(tmp, h, tmp + h, n - h, v);
}

/*
 * Parse the kallsyms text @text (@len bytes, NUL-terminated, modified in
 * place: names are cut at their end) into @k, keeping text symbols.
 * Lines are "ADDR TYPE NAME[\t[MODULE]]" (kernel/kallsyms.c s_show).
 */
static void pg_kallsyms_parse(struct pg_kallsyms *k, char *text, size_t len)
{
        char *p = text, *end = text + len;
        size_t scap = 0;

        while (p < end) {
                uint64_t addr = 0;
                char *q = p, *name, *ne, c;
                int d;

                while ((d = pg_hexval((unsigned char) *q)) >= 0 && q - p < 16)
                        addr = addr << 4 | (uint64_t) d, q++;
                if (q != p && q[0] == ' ' && q[1] != '\0' && strchr("tTwW", q[1]) && q[2] == ' ') {
                        name = q + 3;
                        for (ne = name; *ne != ' ' && *ne != '\t' && *ne != '\n' && *ne != '\0';
                             ne++)
                                ;
                        if (ne > name) {
                                if (k->n == scap) {
                                        scap = scap ? scap * 2 : 4096;
                                        k->syms = pg_xreallocarray(k->syms, scap, sizeof(*k->syms));
                                }
                                k->syms[k->n++] =
                                    (struct pg_ksym){ addr, (uint32_t) (name - text) };
                                c = *ne;
                                *ne = '\0';
                                if (c == '\0')
                                        break;
                                q = ne + 1;
                                if (c == '\n') {
                                        p = q;
                                        continue;
                                }
                        }
                }
                q = memchr(q, '\n', (size_t) (end - q));
                p = q ? q + 1 : end;
        }
}

void pg_kallsyms_load(struct pg_kallsyms *k, const char *path)
{
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        char *text = NULL;
        size_t len = 0, cap = 0;
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
        pg_kallsyms_parse(k, text, len);
        /* the names stay in the text they were read in */
        k->names = text;
        k->names_len = len + 1;
        if (k->n > 1) {
                struct pg_ksym *tmp = pg_xreallocarray(NULL, k->n, sizeof(*tmp));

                pg_ksym_sort(k->syms, k->n, tmp);
                free(tmp);
        }
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
