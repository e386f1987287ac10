/*
 * build.h - running the project's build command (perfgate.json "build") in
 * a checkout: `/bin/sh -c COMMAND` with the checkout as working directory,
 * its own process group, stdout and stderr to a log, and a timeout after
 * which the whole group is stopped (SIGTERM, SIGKILL 500 ms later; the
 * launch protocol of runner/launch.h).
 */
#ifndef PG_RUNNER_BUILD_H
#define PG_RUNNER_BUILD_H

/** Default --build-timeout, seconds. */
#define PG_BUILD_DEFAULT_TIMEOUT_SEC 600.0

/**
 * Run shell command @command in directory @dir, appending its output to
 * @log_path (NULL: /dev/null), for at most @timeout_sec seconds (0: none).
 * @what names the build in messages ("the build of 1a2b3c4d5e6f").
 * Errors: PG_EMEASURE when it exits non-zero, is killed by a signal or
 * outlives @timeout_sec (message: what happened, the option to change, and
 * the tail of the log); PG_ENOTFOUND when @dir does not exist; PG_EINTR on
 * SIGINT/SIGTERM (the build's process group is stopped); PG_EIO.
 */
int pg_build_run(const char *command, const char *dir, double timeout_sec, const char *log_path,
                 const char *what);

#endif
