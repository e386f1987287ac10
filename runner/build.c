/*
 * build.c - the build command under a timeout (build.h). The shell and the
 * build's children share one process group, so a timeout stops make's
 * compilers as well as make.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "common/buf.h"
#include "common/error.h"
#include "runner/build.h"
#include "runner/launch.h"
#include "runner/run.h"

int pg_build_run(const char *command, const char *dir, double timeout_sec, const char *log_path,
                 const char *what)
{
        char *argv[] = { "/bin/sh", "-c", (char *) command, NULL };
        struct pg_launch_opts lo = { .argv = argv, .cwd = dir, .log_path = log_path };
        struct pg_child child;
        struct pg_exit ex;
        char *tail = NULL;
        int error;

        if ((error = pg_launch_prepare(&child, &lo)) < 0)
                return pg_error_prefix(error, "%s: cannot start '%s'", what, command);
        if ((error = pg_launch_start(&child, argv[0])) < 0)
                return pg_error_prefix(error, "%s: cannot start '%s'", what, command);
        error = pg_launch_wait(&child, timeout_sec > 0 ? (uint64_t) (timeout_sec * 1e9) : 0, NULL,
                               0, NULL, NULL, &ex);
        if (error == PG_EINTR)
                return pg_error_set(PG_EINTR, "%s: interrupted; the build was stopped", what);
        if (error < 0)
                return error;
        if (!ex.timed_out && WIFEXITED(ex.status) && WEXITSTATUS(ex.status) == 0)
                return 0;
        tail = log_path ? pg_log_tail(log_path) : pg_xstrdup("(no log kept)");
        if (ex.timed_out)
                error = pg_error_set(PG_EMEASURE,
                                     "%s: '%s' did not finish within %.0f s and was stopped "
                                     "(raise --build-timeout if it needs longer); %s",
                                     what, command, timeout_sec, tail);
        else
                error = pg_error_set(PG_EMEASURE, "%s: '%s' %s in '%s'; %s", what, command,
                                     pg_describe_status(ex.status), dir, tail);
        free(tail);
        return error;
}
