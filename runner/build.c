/*
 * build.c - the build command under a timeout (build.h). The shell and the
 * build's children share one process group, so a timeout stops make's
 * compilers as well as make.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/error.h"
#include "runner/build.h"
#include "runner/launch.h"
#include "runner/run.h"

int pg_build_run(const char *command, const char *dir, double timeout_sec, const char *log_path,
                 const char *what)
{
        char *argv[] = { "/bin/sh", "-c", (char *) command, NULL };
        struct pg_bench_log log = { log_path, -1 };
        struct pg_launch_opts lo = { .argv = argv, .cwd = dir, .log_fd = -1 };
        struct pg_child child;
        struct pg_exit ex;
        char *tail = NULL;
        int error;

        if (log_path && (error = pg_bench_log_open(&log)) < 0)
                return pg_error_prefix(error, "%s", what);
        lo.log_fd = log.fd;
        if ((error = pg_launch_prepare(&child, &lo)) < 0) {
                error = pg_error_prefix(error, "%s: cannot start '%s'", what, command);
                goto done;
        }
        if ((error = pg_launch_start(&child, argv[0])) < 0) {
                error = pg_error_prefix(error, "%s: cannot start '%s'", what, command);
                goto done;
        }
        error = pg_launch_wait(&child, timeout_sec > 0 ? (uint64_t) (timeout_sec * 1e9) : 0, NULL,
                               0, NULL, NULL, &ex);
        if (error == PG_EINTR) {
                error = pg_error_set(PG_EINTR, "%s: interrupted; the build was stopped", what);
                goto done;
        }
        if (error < 0 || (!ex.timed_out && WIFEXITED(ex.status) && WEXITSTATUS(ex.status) == 0))
                goto done;
        tail = log.fd >= 0 ? pg_log_tail(&log) : pg_xstrdup("(no log kept)");
        if (ex.timed_out)
                error = pg_error_set(PG_EMEASURE,
                                     "%s: '%s' did not finish within %.0f s and was stopped "
                                     "(raise --build-timeout if it needs longer); %s",
                                     what, command, timeout_sec, tail);
        else
                error = pg_error_set(PG_EMEASURE, "%s: '%s' %s in '%s'; %s", what, command,
                                     pg_describe_status(ex.status), dir, tail);
        free(tail);
done:
        if (log.fd >= 0)
                close(log.fd);
        return error;
}
