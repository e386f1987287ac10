/*
 * strv.h - NULL-terminated vectors of heap strings (argv, envp, name lists).
 *
 * A strv is a malloc'd array of malloc'd NUL-terminated strings ending with a
 * NULL entry, the shape execve(2) takes for argv and envp.
 */
#ifndef PG_COMMON_STRV_H
#define PG_COMMON_STRV_H

#include <stddef.h>

/**
 * Copy the first @n strings of @v into a new strv (@n entries plus the NULL).
 * @v: @n NUL-terminated strings; it may hold more, or be NULL when @n is 0.
 * Returns the copy, the caller's to pg_strv_free(); allocation failure aborts.
 */
char **pg_strv_dup(char *const *v, size_t n);

/** Free every string of the strv @v and @v itself; NULL is a no-op. */
void pg_strv_free(char **v);

#endif
