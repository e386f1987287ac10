/*
 * demangle.h - symbol names as folded frames show them, the way perf report
 * prints them: the ELF symbol version suffix (`@GLIBC_2.2.5`,
 * `@@GLIBC_2.34`) stripped, then C++ and Rust (legacy and v0) names
 * demangled with libiberty's cplus_demangle(DMGL_AUTO), perf's default
 * flags (tools/perf/util/symbol-elf.c, demangle_sym: DMGL_PARAMS only with
 * -v). That prints no parameter list, so overloads merge into one frame
 * (`ns::f(int) const` -> `ns::f`), no return type (`void
 * std::sort<int*>(int*, int*)` -> `std::sort<int*>`), and no legacy Rust
 * hash (`_ZN1r4work17h0123456789abcdefE` -> `r::work`), so a frame keeps
 * its name from build to build.
 */
#ifndef PG_RUNNER_DEMANGLE_H
#define PG_RUNNER_DEMANGLE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/buf.h"

/**
 * Append the display name of symbol @sym (NUL-terminated) to @out. Names
 * that are not mangled are appended as they are (minus the version suffix).
 */
void pg_demangle(struct pg_buf *out, const char *sym);

/**
 * Append the demangled signature of @sym to @out, with its parameter list
 * (DMGL_PARAMS: `f(long)`, `f(double)`), which tells overloads apart; else
 * as pg_demangle().
 */
void pg_demangle_signature(struct pg_buf *out, const char *sym);

/**
 * Whether @sym (@len bytes, not NUL-terminated) is a mangled Rust symbol:
 * legacy (`_ZN` ... `17h` + 16 hex digits + `E`, Itanium-style with the
 * crate hash last; an LLVM `.llvm.NNN` suffix may follow) or v0 (`_R` then
 * an uppercase path tag; RFC 2603).
 */
bool pg_demangle_is_rust(const char *sym, size_t len);

#endif
