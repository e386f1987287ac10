/*
 * error.h - perfgate's error codes and the thread-local error message.
 *
 * Library functions return 0 on success or a negative PG_E* code, and set a
 * human-readable message with pg_error_set() (lower case, no full stop, the
 * subject in quotes, as git does). cli/ reads it with pg_error_last() and maps
 * the code to an exit status with pg_exit_status() (DESIGN.md section 2).
 * Wrapping layers add context in front with pg_error_prefix().
 * The codes never change meaning; new ones are only appended.
 */
#ifndef PG_COMMON_ERROR_H
#define PG_COMMON_ERROR_H

#include <stdbool.h>

enum pg_error_code {
        PG_OK = 0,
        PG_ERROR = -1,     /* internal error (exit 4) */
        PG_EINPUT = -2,    /* bad input: option, config, corrupt JSON, bad format (exit 2) */
        PG_ENOTFOUND = -3, /* a named file, revision or benchmark does not exist (exit 2) */
        PG_EMEASURE = -4,  /* cannot measure: benchmark failed, crashed, timed out (exit 3) */
        PG_EIO = -5,       /* I/O error reading or writing a file (exit 4) */
        PG_ENOMEM = -6,    /* out of memory (exit 4) */
        PG_ENOTSUP = -7,   /* an event or feature is not supported on this host (exit 3) */
        PG_EPERM = -8,     /* the kernel's policy refuses access (exit 3) */
        PG_EINTR = -9,     /* interrupted by SIGINT/SIGTERM (exit 130) */
        PG_ECONFLICT = -10 /* a ref moved under us; the caller retries (exit 4 if it escapes) */
};

/* Exit statuses of the perfgate command (DESIGN.md section 2); stable. */
enum pg_exit_status {
        PG_EXIT_OK = 0,
        PG_EXIT_REGRESSION = 1,
        PG_EXIT_USAGE = 2,
        PG_EXIT_MEASURE = 3,
        PG_EXIT_INTERNAL = 4,
        PG_EXIT_INTERRUPTED = 130
};

/**
 * Set the calling thread's error message and return @code.
 * @code: a negative PG_E* code.
 * @fmt:  printf-style message: lower case, no full stop.
 * Returns @code, so callers write `return pg_error_set(PG_EINPUT, "...")`.
 */
int pg_error_set(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/**
 * Put context in front of the current message: "<context>: <old message>".
 * Returns @code unchanged, for `return pg_error_prefix(error, "cannot read '%s'", p)`.
 */
int pg_error_prefix(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/**
 * Put @fmt's text after the current message: "<old message><text>" (cut
 * like any message). Returns @code unchanged.
 */
int pg_error_append(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** The calling thread's last message (borrowed; valid until the next pg_error_*). */
const char *pg_error_last(void);

/** Forget the current message. */
void pg_error_clear(void);

/**
 * The hint to append to a message for the errno value @e from a call that
 * opens descriptors: "; raise the open-file limit (ulimit -n)" for EMFILE
 * (the process's RLIMIT_NOFILE, getrlimit(2)), "; the system's file table
 * is full (sysctl fs.file-max)" for ENFILE, "" otherwise. Static string.
 */
const char *pg_fd_limit_hint(int e);

/**
 * The hint to append to a message for the errno value @e from fork(2) or
 * from the steps that start a process: for EAGAIN, the user's process limit
 * (RLIMIT_NPROC, getrlimit(2): fork fails with EAGAIN when the real user
 * already has that many processes; a cgroup's pids.max has the same
 * effect), "; no more processes may start: raise the process limit
 * (ulimit -u) or end some of this user's processes"; otherwise
 * pg_fd_limit_hint(@e). Static string.
 */
const char *pg_fork_limit_hint(int e);

/**
 * Whether the current message reports a full file system: it holds the
 * strerror(3) text of ENOSPC ("No space left on device", a full disk or
 * file system) or of EDQUOT ("Disk quota exceeded"), as libgit2's messages
 * and perfgate's own write errors do.
 */
bool pg_error_disk_full(void);

/** What to do about a full file system, ending a message that says what was saved. */
#define PG_DISK_FULL_TODO "free some space, then run this again"

/**
 * When the current message reports a full file system (pg_error_disk_full())
 * and does not yet say what to do (PG_DISK_FULL_TODO), append "; " and
 * @fmt's text (what was and was not saved), then ": " PG_DISK_FULL_TODO.
 * Returns @code unchanged.
 */
int pg_error_disk_full_note(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** Map a PG_E* code (or 0) to the exit status of DESIGN.md section 2. */
int pg_exit_status(int code);

#endif
