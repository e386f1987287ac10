/*
 * libgit2.c - loading libgit2 on first use (baselines/libgit2.h).
 */
#include "baselines/libgit2.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "common/dlib.h"
#include "common/error.h"

struct pg_libgit2 pg_libgit2;

/* the soname of the libgit2 the headers describe (Debian 12: libgit2.so.1.5,
 * package libgit2-1.5) */
#define PG_LIBGIT2_SONAME "libgit2.so." LIBGIT2_SOVERSION

static pthread_once_t pg_libgit2_once = PTHREAD_ONCE_INIT;
static char pg_libgit2_error[512]; /* empty: loaded */

static const char *const pg_libgit2_names[] = {
#define PG_LIBGIT2_NAME(n) #n,
        PG_LIBGIT2_FUNCS(PG_LIBGIT2_NAME)
#undef PG_LIBGIT2_NAME
};
#define PG_LIBGIT2_N (sizeof(pg_libgit2_names) / sizeof(pg_libgit2_names[0]))

static void pg_libgit2_load(void)
{
        void *fns[PG_LIBGIT2_N];
        size_t i = 0;

        if (!pg_dlib_load(PG_LIBGIT2_SONAME, "git_", pg_libgit2_names, fns, PG_LIBGIT2_N,
                          pg_libgit2_error, sizeof(pg_libgit2_error)))
                return;
#define PG_LIBGIT2_SET(n) *(void **) &pg_libgit2.n = fns[i++];
        PG_LIBGIT2_FUNCS(PG_LIBGIT2_SET)
#undef PG_LIBGIT2_SET
}

int pg_git_init(void)
{
        pthread_once(&pg_libgit2_once, pg_libgit2_load);
        if (pg_libgit2_error[0])
                return pg_error_set(PG_EIO,
                                    "%s; the baseline store needs libgit2 %s (Debian: apt-get "
                                    "install libgit2-%s)",
                                    pg_libgit2_error, LIBGIT2_VERSION, LIBGIT2_SOVERSION);
        if (git_libgit2_init() < 0)
                return pg_error_set(PG_EIO, "cannot initialise libgit2: %s",
                                    git_error_last() ? git_error_last()->message : "unknown error");
        /* perfgate decides whether another user's repository may be opened,
         * by git's rules (baselines/safedir.h); libgit2 1.5's own check
         * misses most of git's configuration. Should the option be refused,
         * libgit2 keeps refusing more than git (pg_store_open() says why). */
        git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 0);
        git_error_clear();
        return 0;
}
