/*
 * libdw.c - loading libdw and libelf on first use (runner/libdw.h).
 */
#define PG_LIBDW_LOADER
#include "runner/libdw.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "common/dlib.h"
#include "common/error.h"

struct pg_libdw pg_libdw;

static pthread_once_t pg_libdw_once = PTHREAD_ONCE_INIT;
static char pg_libdw_error[512]; /* empty: loaded */

static const char *const pg_libdw_names[] = {
#define PG_LIBDW_NAME(n) #n,
        PG_LIBDW_FUNCS(PG_LIBDW_NAME)
#undef PG_LIBDW_NAME
};
static const char *const pg_libelf_names[] = {
#define PG_LIBDW_NAME(n) #n,
        PG_LIBELF_FUNCS(PG_LIBDW_NAME)
#undef PG_LIBDW_NAME
};
#define PG_LIBDW_N  (sizeof(pg_libdw_names) / sizeof(pg_libdw_names[0]))
#define PG_LIBELF_N (sizeof(pg_libelf_names) / sizeof(pg_libelf_names[0]))

static void pg_libdw_load(void)
{
        struct pg_libdw api;
        void *dw[PG_LIBDW_N], *elf[PG_LIBELF_N];
        size_t i = 0, k = 0;

        /* libelf first: its message is the clearer when it is the one missing */
        if (!pg_dlib_load(PG_LIBELF_SONAME, "", pg_libelf_names, elf, PG_LIBELF_N, pg_libdw_error,
                          sizeof(pg_libdw_error)) ||
            !pg_dlib_load(PG_LIBDW_SONAME, "", pg_libdw_names, dw, PG_LIBDW_N, pg_libdw_error,
                          sizeof(pg_libdw_error)))
                return;
#define PG_LIBDW_SET_DW(n)  *(void **) &api.n = dw[i++];
#define PG_LIBDW_SET_ELF(n) *(void **) &api.n = elf[k++];
        PG_LIBDW_FUNCS(PG_LIBDW_SET_DW)
        PG_LIBELF_FUNCS(PG_LIBDW_SET_ELF)
#undef PG_LIBDW_SET_ELF
#undef PG_LIBDW_SET_DW
        /* libelf(3): the version must be set before any other call */
        if (api.elf_version(EV_CURRENT) == EV_NONE) {
                snprintf(pg_libdw_error, sizeof(pg_libdw_error),
                         "%s does not support ELF version %d", PG_LIBELF_SONAME, EV_CURRENT);
                return;
        }
        pg_libdw = api; /* the libraries stay loaded until exit */
}

int pg_libdw_init(void)
{
        pthread_once(&pg_libdw_once, pg_libdw_load);
        if (pg_libdw_error[0])
                return pg_error_set(PG_EIO,
                                    "%s; reading ELF symbols and DWARF debug information needs "
                                    "elfutils' libdw and libelf (Debian: apt-get install libdw1 "
                                    "libelf1)",
                                    pg_libdw_error);
        return 0;
}
