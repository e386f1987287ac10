/*
 * dlib.c - looking up a shared library's functions (common/dlib.h).
 */
#include "common/dlib.h"

#include <dlfcn.h>
#include <stdio.h>

bool pg_dlib_load(const char *soname, const char *prefix, const char *const *names, void **fns,
                  size_t n, char *why, size_t size)
{
        void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
        char sym[128];

        if (lib == NULL) {
                const char *e = dlerror();
                snprintf(why, size, "cannot load %s: %s", soname, e ? e : "unknown error");
                return false;
        }
        for (size_t i = 0; i < n; i++) {
                snprintf(sym, sizeof(sym), "%s%s", prefix, names[i]);
                if ((fns[i] = dlsym(lib, sym)) == NULL) {
                        snprintf(why, size, "%s has no %s", soname, sym);
                        return false;
                }
        }
        return true;
}
