/*
 * dlib.h - a shared library's functions, looked up when first needed
 * (dlopen(3), dlsym(3)), for the libraries perfgate loads instead of
 * linking (baselines/libgit2.h, runner/libdw.h).
 */
#ifndef PG_COMMON_DLIB_H
#define PG_COMMON_DLIB_H

#include <stdbool.h>
#include <stddef.h>

/**
 * dlopen(3) @soname (RTLD_NOW | RTLD_LOCAL; it stays loaded until exit) and
 * look up @n functions: the one named @prefix then @names[i] is stored in
 * @fns[i], as dlsym(3) returns it.
 * Returns true when the library loaded and has them all; otherwise false,
 * @fns partly filled, and @why (@size bytes) says "cannot load <soname>:
 * <dlerror(3)'s reason>" or "<soname> has no <prefix><name>".
 */
bool pg_dlib_load(const char *soname, const char *prefix, const char *const *names, void **fns,
                  size_t n, char *why, size_t size);

#endif
