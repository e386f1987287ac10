/*
 * buf.h - growable byte buffers (git's strbuf, redis' sds) and checked
 * allocation.
 *
 * A struct pg_buf always holds a NUL-terminated string in ptr[0..len] once it
 * has been written to; pg_buf_init() leaves ptr pointing at a shared empty
 * string so readers never see NULL. Allocation failure aborts the process
 * with a message (perfgate's inputs are bounded by what it reads; running out
 * of memory is not recoverable in a CLI).
 */
#ifndef PG_COMMON_BUF_H
#define PG_COMMON_BUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

struct pg_buf {
        char *ptr;  /* NUL-terminated contents; never NULL */
        size_t len; /* bytes used, excluding the NUL */
        size_t cap; /* bytes allocated; 0 while ptr is the shared empty string */
};

#define PG_BUF_INIT                                                                                \
        {                                                                                          \
                pg_buf__empty, 0, 0                                                                \
        }
extern char pg_buf__empty[1];

/** Initialise @b as empty (no allocation). */
void pg_buf_init(struct pg_buf *b);
/** Free @b's memory and leave it empty and reusable. */
void pg_buf_release(struct pg_buf *b);
/** Make @b empty without freeing its memory. */
void pg_buf_reset(struct pg_buf *b);
/** Make room for @extra more bytes plus the NUL. */
void pg_buf_grow(struct pg_buf *b, size_t extra);
/** Append @len bytes from @data. */
void pg_buf_add(struct pg_buf *b, const void *data, size_t len);
/** Append a NUL-terminated string. */
void pg_buf_puts(struct pg_buf *b, const char *s);
/** Append one byte. */
void pg_buf_putc(struct pg_buf *b, char c);
/** Append printf-formatted text. */
void pg_buf_printf(struct pg_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** Append vprintf-formatted text. */
void pg_buf_vprintf(struct pg_buf *b, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
/** Cut @b to @len bytes (@len <= b->len). */
void pg_buf_truncate(struct pg_buf *b, size_t len);
/** Append the @n bytes at @bytes as lowercase hex, two digits each (a build-id); n = 0: nothing. */
void pg_buf_hex(struct pg_buf *b, const unsigned char *bytes, size_t n);

/** Hand the contents to the caller (free() them) and leave @b empty. */
char *pg_buf_detach(struct pg_buf *b, size_t *len);

/**
 * Keep memory that is freed for the rest of the process instead of handing
 * it back to the kernel, for a short command that loads large inputs and
 * frees big blocks between its passes (compare: two result files, their
 * sort scratch, the hotspot tables, the flame tree). Without it glibc gives
 * each freed block over its dynamic mmap threshold back (munmap(), or a
 * trim of the heap's top) and the next pass faults the same amount in again
 * page by page (on a VM a fault costs some microseconds of system time; a
 * compare of two results of a million stacks took 159,000 of them).
 *
 * Sets glibc's M_MMAP_THRESHOLD to 16 MiB (blocks of that size or more are
 * still mapped on their own, so a large read buffer or flame tree is given
 * back when freed and does not fragment the heap) and M_TRIM_THRESHOLD to
 * 1 GiB (the heap is not trimmed below that); setting either also turns off
 * glibc's dynamic adjustment of both (mallopt(3)). No effect, and no error,
 * with another C library. Call it before the first large allocation.
 * Measured by bench/large-result.sh (docs/limits.md).
 */
void pg_malloc_keep_freed(void);

/** malloc/calloc/realloc/strdup/strndup that abort with a message on failure. */
void *pg_xmalloc(size_t n);
void *pg_xcalloc(size_t n, size_t size);
void *pg_xrealloc(void *p, size_t n);
void *pg_xreallocarray(void *p, size_t n, size_t size);
char *pg_xstrdup(const char *s);
char *pg_xstrndup(const char *s, size_t n);
/** Whether @s starts with @prefix; a NULL @s does not. */
bool pg_str_has_prefix(const char *s, const char *prefix);
/** asprintf that aborts on failure; the result is the caller's to free(). */
char *pg_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
