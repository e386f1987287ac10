/*
 * jitdump.h - JIT symbols from jitdump files, "jit-PID.dump", the format
 * JIT compilers write for `perf inject --jit` (node --perf-prof, JVM agents,
 * LuaJIT; tools/perf/util/jitdump.h and jitdump.c in the Linux source).
 *
 * A JIT announces its dump file by mapping it with PROT_EXEC, so that the
 * kernel emits an MMAP record naming it; the symbolizer then reads the file
 * the record names. Layout (every field in the writer's byte order, told by
 * the magic): a header (magic "JiTD" = 0x4A695444, version 1, total_size,
 * elf_mach, pad, pid, timestamp, and from 40 bytes on, flags) then records,
 * each a prefix (id, total_size, timestamp) and a body:
 *   JIT_CODE_LOAD (0): pid, tid, vma, code_addr, code_size, code_index, a
 *                      NUL-terminated name, then code_size bytes of code
 *   JIT_CODE_MOVE (1): pid, tid, vma, old_code_addr, new_code_addr,
 *                      code_size, code_index (the code of code_index now
 *                      runs at new_code_addr)
 *   JIT_CODE_DEBUG_INFO (2), JIT_CODE_UNWINDING_INFO (4): skipped
 *   JIT_CODE_CLOSE (3): the end
 * Symbols go into a pg_jitmap (runner/jitmap.h), in file order: where two
 * loads cover an address, the later one names it (timestamps are not
 * compared with the samples' times).
 */
#ifndef PG_RUNNER_JITDUMP_H
#define PG_RUNNER_JITDUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runner/jitmap.h"

/** The jitdump magic, "JiTD" read as a little-endian word. */
#define PG_JITDUMP_MAGIC 0x4A695444u

/**
 * True when the last component of @path (@len bytes, not NUL-terminated)
 * is "jit-DIGITS.dump", the name perf's jit_detect() looks for in MMAP
 * records. The PID in the name is not compared with the mapping process's
 * (inside a PID namespace they differ).
 */
bool pg_jitdump_is_dump_name(const char *path, size_t len);

/**
 * Append the code symbols of jitdump bytes @data (@len bytes) to @m and
 * sort it. Returns 0 when the data is a complete, well-formed jitdump, or
 * PG_EINPUT with a message naming the first problem ("not a jitdump: ...",
 * an unknown version, "truncated ...": a record that does not fit, a name
 * without its NUL) and the byte offset where it was found; the symbols read before it are kept.
 */
int pg_jitdump_parse(struct pg_jitmap *m, const void *data, size_t len);

/**
 * pg_jitdump_parse() on the file @path (a regular file of at most 1 GiB,
 * opened without blocking). Errors: PG_EIO, nothing read (cannot be read,
 * not a regular file, or "too large (3 GiB, limit 1 GiB)"), PG_EINPUT (as
 * pg_jitdump_parse(), the path in the message; what came before the
 * problem is kept).
 */
int pg_jitdump_load(struct pg_jitmap *m, const char *path);

#endif
