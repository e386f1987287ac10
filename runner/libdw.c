/*
 * libdw.c - loading libdw and libelf on first use (runner/libdw.h).
 */
#define PG_LIBDW_LOADER
#include "runner/libdw.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "common/error.h"

struct pg_libdw pg_libdw;

static pthread_once_t pg_libdw_once = PTHREAD_ONCE_INIT;
static char pg_libdw_error[512]; /* empty: loaded */

/* dlopen(3) @soname into *@lib; false with pg_libdw_error set */
static bool pg_libdw_open(const char *soname, void **lib)
{
        const char *why;

        if ((*lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL)) != NULL)
                return true;
        why = dlerror();
        snprintf(pg_libdw_error, sizeof(pg_libdw_error), "cannot load %s: %s", soname,
                 why ? why : "unknown error");
        return false;
}

static void pg_libdw_load(void)
{
        struct pg_libdw api;
        void *dw, *elf;

        /* libelf first: its message is the clearer when it is the one missing */
        if (!pg_libdw_open(PG_LIBELF_SONAME, &elf) || !pg_libdw_open(PG_LIBDW_SONAME, &dw))
                return;
        memset(&api, 0, sizeof(api));
#define PG_LIBDW_SYM(lib, soname, n)                                                               \
        if ((*(void **) &api.n = dlsym(lib, #n)) == NULL) {                                        \
                snprintf(pg_libdw_error, sizeof(pg_libdw_error), "%s has no %s", soname, #n);      \
                return;                                                                            \
        }
#define PG_LIBDW_SYM_DW(n)  PG_LIBDW_SYM(dw, PG_LIBDW_SONAME, n)
#define PG_LIBDW_SYM_ELF(n) PG_LIBDW_SYM(elf, PG_LIBELF_SONAME, n)
        PG_LIBDW_FUNCS(PG_LIBDW_SYM_DW)
        PG_LIBELF_FUNCS(PG_LIBDW_SYM_ELF)
#undef PG_LIBDW_SYM_ELF
#undef PG_LIBDW_SYM_DW
#undef PG_LIBDW_SYM
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
