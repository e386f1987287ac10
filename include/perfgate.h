/*
 * perfgate.h - region-of-interest markers for benchmarks run by perfgate.
 *
 *   #include "perfgate.h"
 *   ...setup: load inputs, build tables...
 *   perfgate_roi_begin();
 *   ...the work to measure...
 *   perfgate_roi_end();
 *
 * perfgate's counters and samples then cover only the region (with "roi":
 * true in perfgate.json counting starts disabled; without it, counting runs
 * from exec and perfgate_roi_end() stops it early). Regions may repeat; the
 * result's metric roi-share is the regions' share of the run's wall time
 * (docs/run.md, "Region of interest").
 *
 * The calls speak perf's control protocol (perf-stat(1) and perf-record(1),
 * "--control fd:ctl-fd,ack-fd"; tools/perf/util/evlist.c): "enable\n" or
 * "disable\n" is written to the descriptor named by the environment
 * variable PERF_CTL_FD and one "ack\n" is read from PERF_CTL_ACK_FD, so
 * counting has started (stopped) when the call returns. The same benchmark
 * therefore also works under `perf stat --delay=-1 --control fd:...` and
 * `perf record --delay=-1 --control fd:...`.
 *
 * Without perfgate (or perf) the variables are not set and both calls do
 * nothing: one getenv() on the first call, nothing after. They return 0 when
 * the command was acknowledged or there is nobody to tell, -1 when writing
 * or reading the descriptors failed (errno says why).
 *
 * C99 and C++; not thread-safe (call from one thread at a time). The
 * functions are static inline. For a foreign-function interface (Rust, Go,
 * Python ctypes), compile one C file that defines PERFGATE_EXTERN before
 * including this header: the functions are then ordinary external symbols.
 *
 *   // perfgate_ffi.c
 *   #define PERFGATE_EXTERN
 *   #include "perfgate.h"
 *
 *   // Rust: extern "C" { fn perfgate_roi_begin() -> i32; fn perfgate_roi_end() -> i32; }
 *   // Go (cgo): // #include "perfgate.h"  then C.perfgate_roi_begin()
 *
 * Licence: this file is in the public domain (CC0); copy it into any project.
 */
#ifndef PERFGATE_H
#define PERFGATE_H

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#ifdef PERFGATE_EXTERN
#define PERFGATE_API
#else
#define PERFGATE_API static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Send @cmd ("enable\n" or "disable\n", @len bytes) and wait for "ack\n". */
PERFGATE_API int perfgate__control(const char *cmd, size_t len)
{
        static int ctl_fd = -2, ack_fd = -1; /* -2: not looked up yet */
        char c;
        ssize_t n;

        if (ctl_fd == -2) {
                const char *s = getenv("PERF_CTL_FD"), *a = getenv("PERF_CTL_ACK_FD");
                char *end;
                long v;

                ctl_fd = -1;
                if (s && *s) {
                        v = strtol(s, &end, 10);
                        if (*end == '\0' && v >= 0 && v < 1 << 30)
                                ctl_fd = (int) v;
                }
                if (ctl_fd >= 0 && a && *a) {
                        v = strtol(a, &end, 10);
                        if (*end == '\0' && v >= 0 && v < 1 << 30)
                                ack_fd = (int) v;
                }
        }
        if (ctl_fd < 0)
                return 0;
        while (len > 0) {
                n = write(ctl_fd, cmd, len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return -1;
                cmd += n;
                len -= (size_t) n;
        }
        if (ack_fd < 0)
                return 0;
        /* the acknowledgement is "ack\n": read up to its newline */
        for (;;) {
                n = read(ack_fd, &c, 1);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return -1;
                if (c == '\n')
                        return 0;
        }
}

/** Start (or resume) counting and sampling: the region of interest begins. */
PERFGATE_API int perfgate_roi_begin(void)
{
        return perfgate__control("enable\n", 7);
}

/** Stop counting and sampling: the region of interest ends. */
PERFGATE_API int perfgate_roi_end(void)
{
        return perfgate__control("disable\n", 8);
}

#ifdef __cplusplus
}
#endif

#endif
