/*
 * launch.h - starting a benchmark so that counting begins exactly at exec.
 *
 * The handshake (after perf's evlist__prepare_workload, tools/perf/util/
 * evlist.c): fork; the child starts its own session (setsid(2): its own
 * process group, and no controlling terminal, so reading /dev/tty fails
 * instead of stopping it), reads stdin from /dev/null, sends its output to
 * the log descriptor, pins itself to the requested CPUs and
 * blocks on a "go" pipe; the parent opens its perf events on the child's pid
 * (with enable_on_exec) and then calls pg_launch_start(), which releases the
 * child. An exec failure comes back as an errno over a CLOEXEC pipe.
 * pg_launch_wait() polls a pidfd together with the caller's ring-buffer fds,
 * enforces the timeout (SIGTERM to the group, SIGKILL after a grace period),
 * reaps the child with wait4(2), and kills what is left of its process group.
 */
#ifndef PG_RUNNER_LAUNCH_H
#define PG_RUNNER_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

struct pg_launch_opts {
        char *const *argv; /* argv[0] is the program (PATH is searched as execvp(3)
                              does, but nothing is run through /bin/sh) */
        const char *cwd;   /* NULL: inherit */
        char *const *env;  /* NULL, or NULL-terminated "KEY=VALUE" to set */
        int log_fd;        /* the log stdout+stderr go to, opened by the caller (O_APPEND,
                                 inherited, never reopened by name); <= 2: /dev/null */
        const int *cpus;   /* NULL, or ncpus CPU numbers to pin the benchmark to */
        size_t ncpus;
        const int *ctl_fds; /* NULL, or the benchmark's ends of a control channel
                               (runner/control.h): {commands it writes, acks it
                               reads}; inherited by the benchmark and named in its
                               environment as PERF_CTL_FD and PERF_CTL_ACK_FD */
};

/* A benchmark log keeps its first and last bytes; the middle is dropped
 * after each run (pg_log_cap). */
#define PG_LOG_HEAD_BYTES (1024u * 1024u)
#define PG_LOG_TAIL_BYTES (1024u * 1024u)

struct pg_child {
        pid_t pid;         /* the benchmark; also its process group id */
        int go_fd;         /* write end of the go pipe (-1 once released) */
        int err_fd;        /* read end of the exec-errno pipe */
        int pidfd;         /* pidfd_open(2) of pid, or -1 */
        uint64_t start_ns; /* CLOCK_MONOTONIC when released */
        bool via_spawner;  /* forked by the spawner: reaped through it, not wait4 */
        int log_fd;        /* the log (borrowed from the opts), capped after the run; -1 */
        unsigned outlived; /* set when reaped: processes it started still running then */
};

struct pg_exit {
        int status;        /* wait status (WIFEXITED/WIFSIGNALED apply) */
        bool timed_out;    /* killed by perfgate at the timeout */
        bool interrupted;  /* perfgate got SIGINT/SIGTERM and stopped it */
        int stopped_sig;   /* it was stopped by this signal (SIGSTOP, SIGTTIN, ...) and killed */
        uint64_t wall_ns;  /* release to exit, CLOCK_MONOTONIC */
        struct rusage ru;  /* from wait4(2): user/system time, max RSS (KiB) */
        pid_t pid;         /* the benchmark's first process (set by pg_sample_run_once) */
        unsigned outlived; /* processes it started (forked, daemonized) that were still
                              running when it exited, and were killed then; their CPU
                              time until then is in its inherited counters and samples.
                              Exact through the spawner; without it, at most 1 ("some") */
};

/** Called by pg_launch_wait() when a watched fd is readable or every ~100 ms. */
typedef int (*pg_launch_poll_cb)(void *ctx);

/**
 * Fork the benchmark and leave it blocked before exec.
 * Errors: PG_EIO (fork or pipe failed); a working directory that does not
 * exist is found by pg_launch_start().
 */
int pg_launch_prepare(struct pg_child *c, const struct pg_launch_opts *o);

/**
 * Release the child to exec. @program: the name to quote (argv[0] as the
 * user wrote it). When the child could not start, it is reaped and the
 * message names @program, the reason and the fix. Errors: PG_ENOTFOUND (no
 * such program, in PATH or at its path; or no such working directory),
 * PG_EINPUT (not executable, a directory, a script whose "#!" interpreter
 * or an ELF file whose loader is missing, ENOEXEC: not a program this
 * kernel can start, which is never retried through a shell), PG_EPERM,
 * PG_ENOMEM, PG_EIO (control descriptors), PG_EMEASURE (anything else).
 */
int pg_launch_start(struct pg_child *c, const char *program);

/** Kill and reap a prepared child that will not be started. Safe after errors. */
void pg_launch_cancel(struct pg_child *c);

/**
 * Wait for the child to exit.
 * @timeout_ns: 0 for none; else SIGTERM to the group at the deadline and
 *              SIGKILL 500 ms later.
 * @fds, @nfds: extra fds to poll (ring buffers, a control pipe); @cb (may
 *              be NULL) is called when one is readable and at least every
 *              100 ms. The array is read again before every poll: an entry
 *              its owner set to -1 (an fd at EOF) is no longer polled, nor
 *              is an fd once poll(2) said it hung up (POLLHUP, POLLERR,
 *              POLLNVAL: a pipe without writers, a sampling event whose
 *              task exited), so the wait never spins; @cb is still called.
 * An error from @cb stops waiting: the group is killed and the error returned.
 * After the child is reaped its log is capped (pg_log_cap()).
 * A child that stops (WIFSTOPPED: SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU) is
 * killed with its group and @out->stopped_sig says why.
 * On return the process group has been sent SIGKILL (stragglers do not
 * outlive the benchmark), and so has every process it started that left the
 * group (the spawner is their child subreaper); @out->outlived counts them.
 * @out is filled. Returns 0, or PG_EINTR when
 * pg_launch_interrupted() became true (the child is killed and reaped).
 */
int pg_launch_wait(struct pg_child *c, uint64_t timeout_ns, const int *fds, size_t nfds,
                   pg_launch_poll_cb cb, void *ctx, struct pg_exit *out);

/**
 * Start the spawner: a process forked now, while perfgate is small, that
 * forks every later benchmark. The kernel folds a process's pre-exec RSS
 * into its ru_maxrss (fs/exec.c, exec_mmap -> setmax_mm_hiwater_rss), so a
 * benchmark forked straight from a perfgate that has grown (profiles,
 * symbol tables) would report perfgate's size as its max-rss; forked from
 * the spawner, the floor is perfgate's start-up RSS (about 6 MiB) and the
 * same in every run. Optional: without it, pg_launch_prepare() forks
 * directly. Errors: PG_EIO (socketpair or fork failed).
 */
int pg_launch_spawner_start(void);

/** Stop the spawner (it also exits by itself when perfgate exits). */
void pg_launch_spawner_stop(void);

/**
 * Put SIGINT/SIGTERM/SIGHUP in flag mode (pg_interrupt_flag_mode(), see
 * common/interrupt.h): they make pg_launch_interrupted() true instead of
 * ending perfgate at once, so that a running benchmark is stopped first.
 */
void pg_launch_install_signal_handlers(void);

/** Whether SIGINT, SIGTERM or SIGHUP arrived in flag mode. */
bool pg_launch_interrupted(void);

/**
 * Keep a log within PG_LOG_HEAD_BYTES + PG_LOG_TAIL_BYTES (plus one note
 * line): when the file open as @fd (O_APPEND, no writer running) is longer,
 * its first PG_LOG_HEAD_BYTES stay, then one line
 * "[perfgate: N bytes of this log dropped here; ...]" counting every byte
 * dropped so far (a note left by an earlier call is read and replaced),
 * then its last PG_LOG_TAIL_BYTES. Best effort: on an I/O error the file is
 * left as it is, or at least its head and note are kept. Memory: one tail.
 */
void pg_log_cap(int fd);

/** CLOCK_MONOTONIC in nanoseconds. */
uint64_t pg_now_ns(void);

/**
 * Describe a wait status for messages: "exited with status 3",
 * "killed by signal 11 (Segmentation fault)". Returns a static buffer.
 */
const char *pg_describe_status(int status);

#endif
