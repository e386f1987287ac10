/*
 * unwind.h - DWARF call-graph unwinding of PERF_SAMPLE_REGS_USER +
 * PERF_SAMPLE_STACK_USER samples with libdwfl (elfutils libdwfl.h; as perf's
 * tools/perf/util/unwind-libdw.c): one dwfl_attach_state() per address space, then per sample
 * dwfl_getthread_frames() with the sample's registers as the initial state
 * and its stack copy as the only readable memory.
 *
 * Invariants: memory reads outside [SP, SP + dyn_size) fail (the end of the
 * copied stack ends the walk); x86-64 only (the perf register order below is
 * arch/x86/include/uapi/asm/perf_regs.h).
 */
#ifndef PG_RUNNER_UNWIND_H
#define PG_RUNNER_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdwfl.h>

#include "runner/records.h"

/** Per-Dwfl unwinding state; must outlive the Dwfl it is attached to. */
struct pg_unwinder {
        const struct pg_perf_sample *sample; /* the sample being unwound */
        uint64_t regs_mask;                  /* attr.sample_regs_user */
        uint64_t sp;                         /* the sample's user SP */
        bool attached;
};

/**
 * Attach @u to @dwfl (whose modules are reported) for process @pid.
 * Returns 0, or -1 when libdwfl refuses (no module to take the arch from).
 */
int pg_unwind_attach(struct pg_unwinder *u, Dwfl *dwfl, pid_t pid, uint64_t regs_mask);

/**
 * Unwind sample @s of thread @tid into @pcs (leaf first, at most @max),
 * each already adjusted for lookup (pc - 1 for return addresses).
 * Returns the number of frames; 0 when the sample has no user registers.
 */
size_t pg_unwind_sample(struct pg_unwinder *u, Dwfl *dwfl, pid_t tid,
                        const struct pg_perf_sample *s, uint64_t *pcs, size_t max);

/** The perf register @perf_index (PERF_REG_X86_*) of @s, or 0 if not sampled. */
uint64_t pg_unwind_reg(const struct pg_perf_sample *s, uint64_t regs_mask, unsigned perf_index);

#endif
