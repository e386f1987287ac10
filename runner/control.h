/*
 * control.h - perf's control-fd protocol for a benchmark's region of
 * interest (perf-stat(1) and perf-record(1), "--control fd:ctl-fd[,ack-fd]";
 * tools/perf/util/evlist.c, evlist__ctlfd_process()).
 *
 * perfgate creates two pipes per run: the benchmark writes commands to the
 * descriptor named in its environment variable PERF_CTL_FD and reads one
 * "ack\n" per command from PERF_CTL_ACK_FD. A command is a word ended by
 * '\n' or '\0': "enable" enables every counter and sampling event of the
 * run (PERF_EVENT_IOC_ENABLE; inherited events follow in every thread and
 * child), "disable" disables them; "enable"/"disable" followed by ' ' or
 * '-' and an event name act on all events. "ping" and any other command
 * change nothing. Every command is answered with "ack\n" after its ioctls
 * returned, so a benchmark that waits for the ack knows counting has
 * stopped or started (include/perfgate.h does).
 *
 * Counting starts enabled at exec, unless the run starts disabled (the
 * benchmark's "roi": true in perfgate.json, as `perf stat --delay=-1`).
 * The region is the time between an enable and the next disable (or the
 * exit); its length is measured on perfgate's CLOCK_MONOTONIC at each ack.
 */
#ifndef PG_RUNNER_CONTROL_H
#define PG_RUNNER_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** The environment variables that name the benchmark's ends (perf's names). */
#define PG_CTL_FD_ENV     "PERF_CTL_FD"
#define PG_CTL_ACK_FD_ENV "PERF_CTL_ACK_FD"

struct pg_control {
        int ctl_rd;       /* perfgate reads commands here (non-blocking), -1 at EOF */
        int ack_wr;       /* perfgate writes "ack\n" here, -1 once the reader is gone */
        int child_fds[2]; /* the benchmark's ends: {ctl write end, ack read end}; -1 closed */
        const int *fds;   /* the events to switch (group leaders, sampling fds); borrowed */
        size_t nfds;
        bool start_disabled; /* the run started with counting off (roi) */
        bool enabled;        /* counting is on now */
        uint64_t since_ns;   /* CLOCK_MONOTONIC when it was last enabled */
        uint64_t region_ns;  /* time enabled so far (closed regions) */
        uint64_t enables;    /* "enable" commands that switched counting on */
        uint64_t disables;   /* "disable" commands that switched it off */
        uint64_t commands;   /* every command received */
        uint64_t unknown;    /* commands that are neither enable, disable nor ping */
        bool exited_enabled; /* the run ended with counting on, after it started disabled
                                 or was disabled once: the benchmark exited inside its
                                 region */
        bool ended_disabled; /* the run started enabled and ended disabled: a disable
                                 was never followed by an enable */
        char line[64];       /* a partial command */
        size_t len;
        bool overlong; /* the partial command was longer than line: dropped */
        bool unended;  /* the run ended with a partial command (in line, NUL-terminated):
                          written without its '\n' or '\0', so never applied */
};

/**
 * Create the two pipes of @c (close-on-exec, perfgate's ends non-blocking).
 * @start_enabled: whether the events start enabled (then the region starts
 * at pg_control_start()). Errors: PG_EIO when a pipe cannot be created.
 */
int pg_control_open(struct pg_control *c, bool start_enabled);

/**
 * The events' descriptors that commands switch: @fds (@n, borrowed; must
 * stay valid until pg_control_close()). Descriptors < 0 are skipped.
 */
void pg_control_set_targets(struct pg_control *c, const int *fds, size_t n);

/**
 * The benchmark was released at @start_ns: close perfgate's copies of the
 * benchmark's ends (so that EOF is seen when every holder is gone) and, for
 * a run that starts enabled, open the region.
 */
void pg_control_start(struct pg_control *c, uint64_t start_ns);

/**
 * Read every command available without blocking, apply each and answer it.
 * Returns 0, or PG_EIO when an ioctl fails (message names the command and
 * strerror). A benchmark that closed its ends is not an error.
 */
int pg_control_poll(struct pg_control *c);

/**
 * The run ended at @end_ns: read what is left, close the region if it is
 * open (setting exited_enabled when the benchmark had used the protocol or
 * started disabled), note a command left without its end (unended; it is
 * not applied: the benchmark has exited), and close every descriptor. Returns what
 * pg_control_poll() returns.
 */
int pg_control_finish(struct pg_control *c, uint64_t end_ns);

/** Close every descriptor of @c (safe twice, and on a zeroed or failed @c). */
void pg_control_close(struct pg_control *c);

#endif
