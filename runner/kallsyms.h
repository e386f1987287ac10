/*
 * kallsyms.h - kernel function names from /proc/kallsyms for kernel frames
 * of sampled call chains. The table is visible only when the kernel shows
 * addresses (kptr_restrict, perf_event_paranoid); when every address reads
 * as 0 the table is empty and pg_kallsyms_visible() is false.
 */
#ifndef PG_RUNNER_KALLSYMS_H
#define PG_RUNNER_KALLSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pg_ksym {
        uint64_t addr;
        uint32_t name_off; /* into names */
};

struct pg_kallsyms {
        struct pg_ksym *syms; /* sorted by addr */
        size_t n;
        char *names;
        size_t names_len;
};

/**
 * Load the text symbols (types t, T, w, W) of @path (normally
 * "/proc/kallsyms"; lines "ADDR TYPE NAME [MODULE]"). A missing or
 * unreadable file gives an empty table, never an error.
 */
void pg_kallsyms_load(struct pg_kallsyms *k, const char *path);

void pg_kallsyms_release(struct pg_kallsyms *k);

/** Whether any symbol has a non-zero address. */
bool pg_kallsyms_visible(const struct pg_kallsyms *k);

/** The function containing @addr (the last symbol at or below it), or NULL. */
const char *pg_kallsyms_lookup(const struct pg_kallsyms *k, uint64_t addr);

#endif
