/*
 * gitutil.c - libgit2 error detail into perfgate's error (gitutil.h).
 */
#include <stdarg.h>

#include <git2.h>

#include "baselines/gitutil.h"
#include "common/buf.h"
#include "common/error.h"

int pg_git_err(int code, const char *fmt, ...)
{
        struct pg_buf b = PG_BUF_INIT;
        const git_error *e = git_error_last();
        va_list ap;

        va_start(ap, fmt);
        pg_buf_vprintf(&b, fmt, ap);
        va_end(ap);
        if (e && e->message && *e->message)
                pg_buf_printf(&b, ": %s", e->message);
        pg_error_set(code, "%s", b.ptr);
        pg_buf_release(&b);
        return code;
}
