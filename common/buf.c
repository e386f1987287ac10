/*
 * buf.c - growable buffers and checked allocation (see buf.h).
 * Invariant: after any call, b->ptr[b->len] == '\0' and b->len < b->cap
 * unless b->cap == 0 (then ptr is the shared empty string).
 */
#include "common/buf.h"

#include <stdio.h>
#include <stdlib.h>
#ifdef __GLIBC__ /* (defined by the headers above) */
#include <malloc.h>
#endif
#include <string.h>
#include <sys/resource.h>

#include "common/interrupt.h"

char pg_buf__empty[1];

/* Out of memory ends perfgate with status 4 (an internal error: README,
 * "Exit status"), not abort(3): no SIGABRT status 134, no core file. The
 * usual cause on a CI runner is an address-space limit (ulimit -v). The
 * message is formatted into a stack buffer: nothing here allocates. */
static _Noreturn void pg_oom(size_t n)
{
        char msg[320], lim[64] = "unlimited";
        struct rlimit rl;

        if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
                snprintf(lim, sizeof(lim), "%llu KiB", (unsigned long long) rl.rlim_cur / 1024);
        snprintf(msg, sizeof(msg),
                 "perfgate: error: out of memory allocating %zu bytes; raise the address-space "
                 "limit (ulimit -v, now %s) or free memory\n",
                 n, lim);
        pg_interrupt_die(msg, 4);
}

void pg_malloc_keep_freed(void)
{
#ifdef __GLIBC__
        /* mallopt() returns 0 on a bad value; these are in range, and
         * without them malloc only works as before */
        (void) mallopt(M_MMAP_THRESHOLD, 16 << 20);
        (void) mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

void *pg_xmalloc(size_t n)
{
        void *p = malloc(n ? n : 1);
        if (!p)
                pg_oom(n);
        return p;
}

void *pg_xcalloc(size_t n, size_t size)
{
        void *p = calloc(n ? n : 1, size ? size : 1);
        if (!p)
                pg_oom(n * size);
        return p;
}

void *pg_xrealloc(void *p, size_t n)
{
        void *q = realloc(p, n ? n : 1);
        if (!q)
                pg_oom(n);
        return q;
}

void *pg_xreallocarray(void *p, size_t n, size_t size)
{
        if (size && n > (size_t) -1 / size)
                pg_oom((size_t) -1);
        return pg_xrealloc(p, n * size);
}

void pg_buf_hex(struct pg_buf *b, const unsigned char *bytes, size_t n)
{
        static const char digits[] = "0123456789abcdef";

        if (n == 0)
                return;
        pg_buf_grow(b, 2 * n);
        for (size_t i = 0; i < n; i++) {
                b->ptr[b->len++] = digits[bytes[i] >> 4];
                b->ptr[b->len++] = digits[bytes[i] & 15];
        }
        b->ptr[b->len] = '\0';
}

bool pg_str_has_prefix(const char *s, const char *prefix)
{
        return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

char *pg_xstrdup(const char *s)
{
        return pg_xstrndup(s, strlen(s));
}

char *pg_xstrndup(const char *s, size_t n)
{
        size_t len = strnlen(s, n);
        char *p = pg_xmalloc(len + 1);
        memcpy(p, s, len);
        p[len] = '\0';
        return p;
}

char *pg_xasprintf(const char *fmt, ...)
{
        struct pg_buf b = PG_BUF_INIT;
        va_list ap;

        va_start(ap, fmt);
        pg_buf_vprintf(&b, fmt, ap);
        va_end(ap);
        return pg_buf_detach(&b, NULL);
}

void pg_buf_init(struct pg_buf *b)
{
        b->ptr = pg_buf__empty;
        b->len = 0;
        b->cap = 0;
}

void pg_buf_release(struct pg_buf *b)
{
        if (b->cap)
                free(b->ptr);
        pg_buf_init(b);
}

void pg_buf_reset(struct pg_buf *b)
{
        if (b->cap) {
                b->len = 0;
                b->ptr[0] = '\0';
        }
}

void pg_buf_grow(struct pg_buf *b, size_t extra)
{
        size_t need;

        if (extra > (size_t) -1 - b->len - 1)
                pg_oom((size_t) -1);
        need = b->len + extra + 1;
        if (need <= b->cap)
                return;
        size_t cap = b->cap ? b->cap : 64;
        while (cap < need)
                cap = cap > (size_t) -1 / 2 ? need : cap * 2;
        if (b->cap) {
                b->ptr = pg_xrealloc(b->ptr, cap);
        } else {
                b->ptr = pg_xmalloc(cap);
                b->ptr[0] = '\0';
        }
        b->cap = cap;
}

void pg_buf_add(struct pg_buf *b, const void *data, size_t len)
{
        pg_buf_grow(b, len);
        if (len)
                memcpy(b->ptr + b->len, data, len);
        b->len += len;
        b->ptr[b->len] = '\0';
}

void pg_buf_puts(struct pg_buf *b, const char *s)
{
        pg_buf_add(b, s, strlen(s));
}

void pg_buf_putc(struct pg_buf *b, char c)
{
        pg_buf_grow(b, 1);
        b->ptr[b->len++] = c;
        b->ptr[b->len] = '\0';
}

void pg_buf_vprintf(struct pg_buf *b, const char *fmt, va_list ap)
{
        va_list cp;
        int n;

        pg_buf_grow(b, 64);
        va_copy(cp, ap);
        n = vsnprintf(b->ptr + b->len, b->cap - b->len, fmt, cp);
        va_end(cp);
        if (n < 0)
                return;
        if ((size_t) n >= b->cap - b->len) {
                pg_buf_grow(b, (size_t) n);
                n = vsnprintf(b->ptr + b->len, b->cap - b->len, fmt, ap);
        }
        b->len += (size_t) n;
}

void pg_buf_printf(struct pg_buf *b, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        pg_buf_vprintf(b, fmt, ap);
        va_end(ap);
}

void pg_buf_truncate(struct pg_buf *b, size_t len)
{
        if (len < b->len) {
                b->len = len;
                b->ptr[len] = '\0';
        }
}

char *pg_buf_detach(struct pg_buf *b, size_t *len)
{
        char *p;

        if (!b->cap)
                pg_buf_grow(b, 0);
        p = b->ptr;
        if (len)
                *len = b->len;
        pg_buf_init(b);
        return p;
}
