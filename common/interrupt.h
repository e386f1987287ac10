/*
 * interrupt.h - what SIGINT, SIGTERM and SIGHUP do to perfgate.
 *
 * Every command exits with status 130 on these signals (README, "Exit
 * status"), leaving no temporary file behind. Two modes:
 *  - exit mode (the default, installed by main() before any command runs):
 *    the handler removes the temporaries registered with
 *    pg_interrupt_track() and calls _exit(130) at once. Commands that only
 *    read and write files need nothing else.
 *  - flag mode (pg_interrupt_flag_mode(), for commands that run benchmarks
 *    or other children: `run`, `record`, `top`, `compare --confirm`,
 *    `bisect`): the handler only records the signal; the command's loops
 *    poll pg_interrupted(), stop their children, and return PG_EINTR.
 * pg_interrupt_hold() defers the exit across a step that must not be cut
 * (a git ref update holding its .lock file). Everything the handler does
 * is async-signal-safe (signal-safety(7)): atomics, unlink(2), openat(2),
 * getdents64(2), unlinkat(2), write(2), _exit(2).
 */
#ifndef PG_COMMON_INTERRUPT_H
#define PG_COMMON_INTERRUPT_H

#include <stdbool.h>

/**
 * Install the exit-mode handler for SIGINT, SIGTERM and SIGHUP. A SIGHUP
 * the process inherited as ignored (nohup(1)) stays ignored; SIGINT is
 * handled even when inherited as ignored, as a shell script's background
 * job (`perfgate record ... &`) inherits it, so that `kill -INT` stops it.
 * Call once, from main() of the process that owns the temporaries: in a
 * child forked later (before it execs), the handler restores the default
 * action and re-raises the signal instead.
 */
void pg_interrupt_install(void);

/** Switch to flag mode: a signal only makes pg_interrupted() true. */
void pg_interrupt_flag_mode(void);

/** Whether SIGINT, SIGTERM or SIGHUP arrived in flag mode. */
bool pg_interrupted(void);

/**
 * Remember @path (a file, or a directory removed with what it holds) as a
 * temporary to remove if a signal ends the process, or out of memory
 * (pg_interrupt_die()). @path is borrowed: it must stay valid and
 * unchanged until pg_interrupt_untrack(@path). Returns false when all the
 * slots (a few dozen) are in use; the path is then not tracked.
 */
bool pg_interrupt_track(const char *path);

/** Forget @path (the same pointer given to pg_interrupt_track()). */
void pg_interrupt_untrack(const char *path);

/**
 * Defer SIGINT/SIGTERM/SIGHUP in exit mode until the matching
 * pg_interrupt_release(): for a step that would leave a lock behind if
 * cut. Nests. Also used to make creating a temporary and tracking it one
 * step.
 */
void pg_interrupt_hold(void);

/**
 * End a pg_interrupt_hold(). When the outermost hold ends and a signal came
 * meanwhile, this exits as the handler would have (temporaries removed,
 * status 130): the signal's action, deferred, not an error path.
 */
void pg_interrupt_release(void);

/**
 * Remove the tracked temporaries, write @msg (a complete line) to stderr,
 * and _exit(@status). Async-signal-safe. For fatal conditions such as
 * running out of memory (status 4).
 */
_Noreturn void pg_interrupt_die(const char *msg, int status);

#endif
