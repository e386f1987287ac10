/*
 * error.c - the thread-local error message behind pg_error_set().
 * Invariant: the message is always NUL-terminated and at most
 * PG_ERROR_MAX-1 bytes; longer messages are cut, never overflowed.
 */
#include "common/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define PG_ERROR_MAX 4096

static _Thread_local char pg_errmsg[PG_ERROR_MAX];
static _Thread_local int pg_errcode;

int pg_error_set(int code, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(pg_errmsg, sizeof(pg_errmsg), fmt, ap);
        va_end(ap);
        pg_errcode = code;
        return code;
}

int pg_error_prefix(int code, const char *fmt, ...)
{
        char old[PG_ERROR_MAX];
        va_list ap;
        int n;

        memcpy(old, pg_errmsg, sizeof(old));
        va_start(ap, fmt);
        n = vsnprintf(pg_errmsg, sizeof(pg_errmsg), fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t) n + 2 < sizeof(pg_errmsg) && old[0]) {
                size_t room = sizeof(pg_errmsg) - (size_t) n - 2, len = strnlen(old, room);
                memcpy(pg_errmsg + n, ": ", 2);
                memcpy(pg_errmsg + n + 2, old, len);
                pg_errmsg[(size_t) n + 2 + (len < room ? len : room - 1)] = '\0';
        }
        if (!pg_errcode)
                pg_errcode = code;
        return code;
}

int pg_error_append(int code, const char *fmt, ...)
{
        size_t len = strnlen(pg_errmsg, sizeof(pg_errmsg));
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(pg_errmsg + len, sizeof(pg_errmsg) - len, fmt, ap);
        va_end(ap);
        return code;
}

bool pg_error_disk_full(void)
{
        return strstr(pg_errmsg, strerror(ENOSPC)) || strstr(pg_errmsg, strerror(EDQUOT));
}

int pg_error_disk_full_note(int code, const char *fmt, ...)
{
        size_t len = strnlen(pg_errmsg, sizeof(pg_errmsg));
        va_list ap;

        if (!pg_error_disk_full() || strstr(pg_errmsg, PG_DISK_FULL_TODO))
                return code;
        if (len + 2 < sizeof(pg_errmsg)) {
                memcpy(pg_errmsg + len, "; ", 3);
                va_start(ap, fmt);
                vsnprintf(pg_errmsg + len + 2, sizeof(pg_errmsg) - len - 2, fmt, ap);
                va_end(ap);
        }
        return pg_error_append(code, ": %s", PG_DISK_FULL_TODO);
}

const char *pg_error_last(void)
{
        return pg_errmsg[0] ? pg_errmsg : "unknown error";
}

void pg_error_clear(void)
{
        pg_errmsg[0] = '\0';
        pg_errcode = 0;
}

int pg_exit_status(int code)
{
        switch (code) {
        case PG_OK:
                return PG_EXIT_OK;
        case PG_EINPUT:
        case PG_ENOTFOUND:
                return PG_EXIT_USAGE;
        case PG_EMEASURE:
        case PG_ENOTSUP:
        case PG_EPERM:
                return PG_EXIT_MEASURE;
        case PG_EINTR:
                return PG_EXIT_INTERRUPTED;
        default:
                return PG_EXIT_INTERNAL;
        }
}

const char *pg_fd_limit_hint(int e)
{
        if (e == EMFILE)
                return "; raise the open-file limit (ulimit -n)";
        if (e == ENFILE)
                return "; the system's file table is full (sysctl fs.file-max)";
        return "";
}

const char *pg_fork_limit_hint(int e)
{
        if (e == EAGAIN)
                return "; no more processes may start: raise the process limit (ulimit -u) or end "
                       "some of this user's processes";
        return pg_fd_limit_hint(e);
}
