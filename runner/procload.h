/*
 * procload.h - the machine's other load while a benchmark's measured
 * repetitions ran, from the system-wide CPU times in /proc/stat (proc(5),
 * the first "cpu" line): read once right before the first measured
 * repetition and once after the last (docs/result-format.md, "load").
 */
#ifndef PG_RUNNER_PROCLOAD_H
#define PG_RUNNER_PROCLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "baselines/result.h"

/** System-wide CPU times of all CPUs, in clock ticks (USER_HZ, proc(5)). */
struct pg_proc_cpu {
        bool ok;        /* false: /proc/stat could not be read or parsed */
        uint64_t busy;  /* user + nice + system + irq + softirq (guest is inside user/nice) */
        uint64_t idle;  /* idle + iowait */
        uint64_t steal; /* time a hypervisor ran something else (0 before Linux 2.6.11) */
};

/**
 * Parse the first line of /proc/stat's text @text (@len bytes, need not be
 * NUL-terminated): "cpu  user nice system idle iowait irq softirq steal
 * guest guest_nice" (proc(5); at least user..idle, the later fields count as
 * 0 when absent). Returns 0 and fills @out (ok true), or PG_EINPUT when the
 * text does not start with such a line (@out's ok false).
 */
int pg_proc_cpu_parse(const char *text, size_t len, struct pg_proc_cpu *out);

/**
 * Read /proc/stat's first line now into @out: one open and one read of at
 * most 256 bytes. Never fails: what cannot be read leaves out->ok false.
 */
void pg_proc_cpu_read(struct pg_proc_cpu *out);

/**
 * The other load between @before and @after (both ok, @after later) into
 * @out: other_cpus = (busy ticks / @clk_tck seconds - @own_cpu_ns, the
 * benchmark's own user + system time) / @wall_ns, at least 0; steal =
 * steal delta / (busy + idle + steal delta), 0 when no tick passed;
 * window_ns = @wall_ns. Leaves out->present false (and returns false) when
 * either side is not ok, a counter went backwards, @wall_ns is 0 or
 * @clk_tck is not positive.
 */
bool pg_proc_load_compute(const struct pg_proc_cpu *before, const struct pg_proc_cpu *after,
                          double own_cpu_ns, uint64_t wall_ns, long clk_tck, struct pg_load *out);

#endif
