/*
 * demangle.h - symbol names as folded frames show them: the ELF symbol
 * version suffix (`@GLIBC_2.2.5`, `@@GLIBC_2.34`) stripped, then C++ and Rust
 * (legacy and v0) names demangled with libiberty's cplus_demangle
 * (DMGL_AUTO|DMGL_PARAMS|DMGL_ANSI, as tools/perf/util/demangle-*.c), then
 * the trailing parameter list dropped so that overloads merge into one frame
 * (`ns::f(int) const` -> `ns::f`).
 */
#ifndef PG_RUNNER_DEMANGLE_H
#define PG_RUNNER_DEMANGLE_H

#include "common/buf.h"

/**
 * Append the display name of symbol @sym (NUL-terminated) to @out. Names
 * that are not mangled are appended as they are (minus the version suffix).
 */
void pg_demangle(struct pg_buf *out, const char *sym);

#endif
