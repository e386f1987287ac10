/*
 * jitmap.c - /tmp/perf-PID.map parsing and lookup (see jitmap.h).
 * Invariant: syms sorted by start; names owned by the map.
 */
#include "runner/jitmap.h"

#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"

static int pg_jitsym_cmp(const void *a, const void *b)
{
        const struct pg_jitsym *x = a, *y = b;

        if (x->start != y->start)
                return x->start < y->start ? -1 : 1;
        return x->seq < y->seq ? -1 : x->seq > y->seq; /* file order for equal starts */
}

static bool pg_hex(const char **p, const char *end, uint64_t *v)
{
        const char *s = *p;
        uint64_t x = 0;
        int digits = 0;

        if (end - s >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
                s += 2;
        for (; s < end; s++, digits++) {
                int d;

                if (*s >= '0' && *s <= '9')
                        d = *s - '0';
                else if (*s >= 'a' && *s <= 'f')
                        d = *s - 'a' + 10;
                else if (*s >= 'A' && *s <= 'F')
                        d = *s - 'A' + 10;
                else
                        break;
                if (digits >= 16)
                        return false;
                x = x * 16 + (uint64_t) d;
        }
        if (digits == 0)
                return false;
        *p = s;
        *v = x;
        return true;
}

void pg_jitmap_add(struct pg_jitmap *m, uint64_t start, uint64_t size, const char *name, size_t len)
{
        if (m->n == m->cap) {
                m->cap = m->cap ? m->cap * 2 : 64;
                m->syms = pg_xreallocarray(m->syms, m->cap, sizeof(*m->syms));
        }
        m->syms[m->n] = (struct pg_jitsym){ start, size, pg_xstrndup(name, len), m->n };
        m->n++;
}

void pg_jitmap_sort(struct pg_jitmap *m)
{
        uint64_t end = 0;

        if (m->n > 1)
                qsort(m->syms, m->n, sizeof(*m->syms), pg_jitsym_cmp);
        /* the furthest end of syms[0..i], for the lookup's backward scan */
        free(m->max_end);
        m->max_end = m->n ? pg_xreallocarray(NULL, m->n, sizeof(*m->max_end)) : NULL;
        for (size_t i = 0; i < m->n; i++) {
                uint64_t e = m->syms[i].start + m->syms[i].size;

                if (e < m->syms[i].start) /* wrapped: up to the top of the address space */
                        e = UINT64_MAX;
                if (e > end)
                        end = e;
                m->max_end[i] = end;
        }
}

void pg_jitmap_parse(struct pg_jitmap *m, const char *text, size_t len)
{
        const char *p = text, *end = text + len;

        while (p < end) {
                const char *nl = memchr(p, '\n', (size_t) (end - p)), *le = nl ? nl : end, *q = p;
                uint64_t start, size;

                if (pg_hex(&q, le, &start) && q < le && *q == ' ' && (q++, pg_hex(&q, le, &size)) &&
                    q < le && *q == ' ') {
                        const char *name = q + 1, *ne = le;

                        if (ne > name && ne[-1] == '\r')
                                ne--;
                        pg_jitmap_add(m, start, size, name, (size_t) (ne - name));
                }
                p = nl ? nl + 1 : end;
        }
        pg_jitmap_sort(m);
}

void pg_jitmap_load(struct pg_jitmap *m, const char *path)
{
        struct pg_buf text = PG_BUF_INIT;

        memset(m, 0, sizeof(*m));
        if (pg_read_file(path, &text) < 0) {
                pg_error_clear();
                pg_buf_release(&text);
                return;
        }
        m->loaded = true;
        pg_jitmap_parse(m, text.ptr, text.len);
        pg_buf_release(&text);
}

void pg_jitmap_release(struct pg_jitmap *m)
{
        for (size_t i = 0; i < m->n; i++)
                free(m->syms[i].name);
        free(m->syms);
        free(m->max_end);
        memset(m, 0, sizeof(*m));
}

const struct pg_jitsym *pg_jitmap_lookup(const struct pg_jitmap *m, uint64_t addr)
{
        /* of the entries covering addr, the last added wins: scan back from
         * the last start <= addr while an earlier entry can still reach addr */
        const struct pg_jitsym *best = NULL;
        size_t lo = 0, hi = m->n, scanned = 0;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;

                if (m->syms[mid].start <= addr)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        for (size_t i = lo; i-- > 0 && m->max_end && m->max_end[i] > addr;) {
                if (addr - m->syms[i].start < m->syms[i].size &&
                    (!best || m->syms[i].seq > best->seq))
                        best = &m->syms[i];
                if (++scanned == PG_JITMAP_SCAN_MAX)
                        break;
        }
        return best;
}
